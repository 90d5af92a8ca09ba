/** Subscriber exports' tuning constants. */

/** Subscribers read per export query (keyset on id). */
export const EXPORT_BATCH = 1000;

/** How long an export's file can be downloaded. */
export const EXPORT_TTL_MS = 24 * 60 * 60_000;

/** Export jobs one worker process runs at once. */
export const EXPORT_CONCURRENCY = 1;
