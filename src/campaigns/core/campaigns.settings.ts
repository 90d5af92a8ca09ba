/** The campaign send's tuning constants: fan-out, delivery, watchdog, schedule and throttle. */

/** Audience rows read and written per fan-out transaction: bounded memory, short locks. */
export const FANOUT_BATCH = 1000;

/** Recipients per delivery job: small enough to spread over workers and to retry cheaply. */
export const DELIVERY_BATCH = 250;

/**
 * Fan-out jobs one worker process runs at once. A fan-out is mostly waiting on PostgreSQL;
 * two lets a second campaign start while a large one is still being read.
 */
export const FANOUT_CONCURRENCY = 2;

/**
 * Attempts of a fan-out job, 1 s apart and doubling. A fan-out only fails when PostgreSQL or
 * Redis does; twenty doublings outlast any outage the watchdog would not cover anyway.
 */
export const FANOUT_ATTEMPTS = 20;
export const FANOUT_BACKOFF_MS = 1000;

/** Recipients claimed by one conditional UPDATE: one round trip per 50 sends. */
export const DELIVERY_CHUNK = 50;

/** Messages one job keeps in flight (the SMTP pool queues beyond its connections). */
export const DELIVERY_WINDOW = 100;

/** Delivery jobs one worker process runs at once: enough to keep the SMTP pool busy. */
export const DELIVERY_CONCURRENCY = 4;

/**
 * Attempts of a delivery job that failed because a store (PostgreSQL, Redis) was away, 1 s
 * apart and doubling (about 17 minutes in all); the watchdog revives the campaign after that.
 * Temporary SMTP refusals do not use these: they are deferred in the ledger (SMTP_RETRY_*).
 */
export const DELIVERY_ATTEMPTS = 11;
export const DELIVERY_BACKOFF_MS = 1000;

/**
 * A delivery run's lease on the recipients it claims. Renewed every few seconds while it runs;
 * a worker that dies or freezes loses its claims this long after its last renewal, and another
 * run takes them over. Longer than a PostgreSQL restart (an outage shorter than the lease costs
 * no duplicate: the frozen-out run still owns its rows when the store returns).
 */
export const DELIVERY_LEASE_MS = 30_000;
export const DELIVERY_LEASE_RENEW_MS = 5_000;

/**
 * A run stops handing messages to SMTP this long before its lease ends by its own clock: room
 * for one SMTP transaction and for clock drift between worker and database hosts, so that a
 * message never starts after another run may have taken its row over.
 */
export const DELIVERY_LEASE_MARGIN_MS = 5_000;

/**
 * Outcomes are written by group commit (the ones that arrived while the previous write ran go
 * together), at most this many in one transaction.
 */
export const RECORD_BATCH = 100;

/**
 * How often every worker process looks for sends that stopped advancing, and checks that Redis
 * still holds its jobs (a marker key that vanishes when Redis restarts empty): sending resumes
 * within about this long after Redis lost its data.
 */
export const WATCHDOG_TICK_MS = 5_000;

/**
 * A sending campaign with no live delivery run whose progress has not moved for this long gets
 * its fan-out again (recipients only waiting for a deferred retry do not count as stalled).
 * Live runs renew their leases every few seconds, so this is about lost jobs.
 */
export const WATCHDOG_IDLE_SECONDS = 30;

/** Stalled campaigns revived per tick; the next tick takes the rest. */
export const WATCHDOG_BATCH = 100;

/**
 * How often every worker process looks for scheduled campaigns whose time has come: a
 * campaign starts within about this long of its send_at (one indexed query per tick).
 */
export const SCHEDULE_TICK_MS = 1_000;

/** Due campaigns started per tick; the next tick takes the rest. */
export const SCHEDULE_BATCH = 50;

/**
 * How often a delivery job re-reads its campaign's status while it claims: a pause or a
 * cancellation stops every job's claims within about this long, at one indexed read each.
 */
export const SEND_STATUS_CHECK_MS = 1_000;

/** A throttled job whose Redis call failed asks again after this long (it never sends unthrottled). */
export const SEND_RATE_RETRY_MS = 1_000;

/**
 * After a resume, the fan-out runs again this much later too: a delivery job still finishing
 * its last messages when the campaign was resumed kept the new job of its batch from being
 * added (job ids are stable), and by then it is gone.
 */
export const RESUME_RECHECK_MS = 5_000;

/**
 * How often the reputation guard checks the campaigns whose outcomes or feedback moved since
 * its last pass: one statement per such campaign per pass, off the send's path, so a bad list
 * is stopped within about this long of passing its limit, at no cost per message.
 */
export const REPUTATION_CHECK_MS = 200;

/**
 * A repeated open of one message, or click of one link in one message, within this many
 * seconds of the first counts and publishes once: a reader's client refetching the pixel, a
 * double click, or a loop of requests on one link costs nothing after the first.
 */
export const REPEAT_HIT_WINDOW_SECONDS = 60;

/** Campaigns the dashboard's overview shows against the reputation guard's limits. */
export const RECENT_CAMPAIGNS_SHOWN = 10;
