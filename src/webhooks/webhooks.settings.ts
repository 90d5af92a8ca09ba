/** Outbound webhooks' tuning constants: retry schedule, claims, pace, retention. */

/**
 * How long a process trusts the endpoints it read for an account. Events are published on the
 * send hot path; an endpoint created or disabled in another process is seen within this.
 */
export const WEBHOOK_ENDPOINTS_CACHE_MS = 5_000;

/**
 * The Standard Webhooks retry schedule: the delay before each attempt (the first at once),
 * eight attempts over about 27 hours; a 2xx ends it, the last failure fails the delivery.
 */
export const WEBHOOK_SCHEDULE_MS = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  10 * 3600_000,
];

/** An endpoint whose every attempt failed for this long is disabled, with the reason. */
export const WEBHOOK_DISABLE_AFTER_DAYS = 5;

/** How long an endpoint may take to answer; a slower one is a failed attempt. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/**
 * Longer than any attempt: a claim this old belongs to a dead dispatcher and is due again. A
 * batch of new events is held longer than one attempt; its holder renews it every third of
 * this while it works through it.
 */
export const WEBHOOK_CLAIM_LEASE_MS = 60_000;

/**
 * Batches of new events claimed at once, when the dispatcher has nothing else queued. One is
 * whatever one transaction recorded: up to 200 events (a chunk of a campaign's outcomes) per
 * endpoint.
 */
export const WEBHOOK_BATCHES_PER_CLAIM = 2;

/**
 * Requests one process keeps in flight. Webhooks share the workers' cores with the campaign
 * send; this bounds what they take from it (bench/campaign-send --webhook).
 */
export const WEBHOOK_CONCURRENCY = 32;

/**
 * …and while any worker delivers campaign mail: mail first. A 100k send is not slowed by the
 * 200k events it causes (bench/campaign-send BENCH_WEBHOOK=1); they catch up after it.
 */
export const WEBHOOK_CONCURRENCY_WHILE_SENDING = 4;

/** …claimed once per this interval at most: at most 40 deliveries a second per process. */
export const WEBHOOK_TICK_WHILE_SENDING_MS = 100;

/** Deliveries claimed per statement. */
export const WEBHOOK_CLAIM_BATCH = 50;

/** How often an idle dispatcher looks for due deliveries (other processes' events, retries). */
export const WEBHOOK_POLL_MS = 1_000;

/** Results written at once, at most this long after the first of them. */
export const WEBHOOK_RESULT_BATCH = 100;
export const WEBHOOK_RESULT_DELAY_MS = 50;

/**
 * …while campaign mail is being delivered: a result write is a transaction of several
 * statements, and at the reduced pace above a 50 ms delay made one per two or three results.
 */
export const WEBHOOK_RESULT_DELAY_WHILE_SENDING_MS = 1_000;

/** Finished deliveries (and their log) are kept this long. */
export const WEBHOOK_RETENTION_DAYS = 30;
