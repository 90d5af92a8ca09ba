/** The message log's tuning constants: the retention sweep. */

/**
 * How often each worker process runs the retention sweep. Messages expire by the day, so a
 * pass a minute keeps the table within a minute of its retention; an expired message is
 * answered 404 from the moment it expires, whatever the sweep's progress.
 */
export const RETENTION_SWEEP_EVERY_MS = 60_000;

/**
 * Rows one retention statement deletes: small enough that each statement holds its locks and
 * its WAL for a moment only (the send path writes these tables at the same time), large enough
 * that a million expired messages go in a few minutes.
 */
export const RETENTION_BATCH = 5_000;

/** Batches one pass deletes at most, so a backlog never makes one pass run for long. */
export const RETENTION_BATCHES_PER_PASS = 100;
