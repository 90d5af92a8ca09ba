/** How often a process on the PostgreSQL store deletes expired marks and token buckets. */
export const STORE_SWEEP_EVERY_MS = 60_000;

/** Rows deleted per statement of that sweep, so it never holds many locks at once. */
export const STORE_SWEEP_BATCH = 5_000;

/**
 * Connections in the pool of each BullMQ queue and worker on the PostgreSQL backend (every
 * Queue and Worker owns one, plus a LISTEN connection per worker): a few each, so that a
 * process with every queue stays well inside PostgreSQL's max_connections.
 */
export const QUEUE_POOL_SIZE = 3;

/** The schema BullMQ's PostgreSQL backend keeps its queues in (created by BullMQ itself). */
export const QUEUE_SCHEMA = 'bullmq';
