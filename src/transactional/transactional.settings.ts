/** Transactional mail's tuning constants: claims, workers, the recovery sweep, idempotency. */

/**
 * How long a claim protects a message from other workers, renewed every
 * TRANSACTIONAL_LEASE_RENEW_MS while its worker works on it (however long the SMTP exchange
 * takes). A worker that dies or freezes loses it this long after its last renewal; the sweep
 * then requeues the message. A minute: longer than a PostgreSQL restart (a worker cut off for
 * less keeps its claim, so its outcome write lands and nothing goes twice), short enough that
 * a dead worker's message is sent again about a minute later.
 */
export const TRANSACTIONAL_CLAIM_LEASE_MS = 60_000;
export const TRANSACTIONAL_LEASE_RENEW_MS = 10_000;

/**
 * A worker hands a message to SMTP only with at least this much of its lease left by its own
 * clock: room for the handover and for clock drift between worker and database hosts, so a
 * message never starts after another worker may have taken it over.
 */
export const TRANSACTIONAL_LEASE_MARGIN_MS = 10_000;

/** Messages one worker process sends at once: one SMTP transaction each, mostly waiting. */
export const TRANSACTIONAL_CONCURRENCY = 8;

/**
 * Attempts of a send job that failed for a reason other than the relay's answer (PostgreSQL
 * away, an error of ours), 2 s apart and doubling: about 17 minutes in all. The relay's
 * temporary refusals do not use these: they are deferred on the message row (SMTP_RETRY_*).
 */
export const TRANSACTIONAL_ATTEMPTS = 10;
export const TRANSACTIONAL_BACKOFF_MS = 2000;

/**
 * How often each worker process runs the recovery sweep: a lapsed claim (its worker died) is
 * requeued within this long of its lease running out. Each pass is a few indexed statements.
 */
export const SWEEP_EVERY_MS = 10_000;

/** A queued message this old without progress may have lost its job. */
export const STRANDED_AFTER_MS = 60_000;

/**
 * How long an in-progress Idempotency-Key claim holds its key before another request may take
 * it over: longer than any send request takes, short enough that a client retrying after a
 * crash is not locked out for long.
 */
export const IDEMPOTENCY_CLAIM_LEASE_SECONDS = 30;
