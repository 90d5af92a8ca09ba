/** Subscriber imports' tuning constants: sizes, batches and workers. */

/** The largest CSV an import takes. */
export const IMPORT_MAX_BYTES = 100 * 1024 * 1024;

/**
 * Rows per import transaction: the unit of the checkpoint. Large enough that the per-batch
 * round trips (identity locks, tombstones, existing rows, writes, checkpoint) are a small
 * share of the work, small enough that a batch's rows, their locks and a rolled-back batch
 * after a crash stay cheap. 1,000 rather than 500: the same worker peak (172 MiB over 100,000
 * rows), half the transactions.
 */
export const IMPORT_BATCH = 1000;

/** Import jobs one worker process runs at once: each holds a file stream and a batch. */
export const IMPORT_CONCURRENCY = 1;

/** Columns an import's header may have, and bytes one CSV record may take. */
export const IMPORT_MAX_COLUMNS = 200;
export const IMPORT_MAX_RECORD_BYTES = 64 * 1024;

/** Rows of errors GET /v1/imports/{id} shows; all of them are in the errors download. */
export const IMPORT_ERRORS_SHOWN = 1000;

/** An upload that has not completed after this long was abandoned; the sweep deletes it. */
export const ABANDONED_UPLOAD_MS = 60 * 60_000;
