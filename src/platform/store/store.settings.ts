/** How often a process on the PostgreSQL store deletes expired marks and token buckets. */
export const STORE_SWEEP_EVERY_MS = 60_000;

/** Rows deleted per statement of that sweep, so it never holds many locks at once. */
export const STORE_SWEEP_BATCH = 5_000;

/**
 * Connections for queries in the one pool that all of a process's BullMQ queues and workers
 * share on the PostgreSQL store (queue-pool.ts). The pool holds one more for each worker's
 * LISTEN. Queue statements are short: five keep a process's queues from waiting on each other,
 * and an API with two worker processes far inside PostgreSQL's max_connections.
 */
export const QUEUE_QUERY_CONNECTIONS = 5;

/**
 * Queues on the PostgreSQL store wait, from their first use, until BullMQ's schema is in place,
 * trying PostgreSQL again and again: the first pause between tries, doubled after each failure
 * up to the longest.
 */
export const QUEUE_STORE_RETRY_FIRST_MS = 250;
export const QUEUE_STORE_RETRY_MAX_MS = 5_000;

/** The schema BullMQ's PostgreSQL backend keeps its queues in (made by BullMQ's migrations). */
export const QUEUE_SCHEMA = 'bullmq';
