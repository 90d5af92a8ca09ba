/**
 * Herald's tuning constants in one place: batch sizes, leases, retry budgets, windows and
 * intervals. None is a contract with clients (those are limits checked on input, kept beside
 * their DTOs); each is a trade-off measured or reasoned about, and the comment says which.
 * Change one here and every user of it follows.
 */

// --- PostgreSQL ------------------------------------------------------------------------------

/**
 * Connections in the process's one pg pool (Prisma and the hot statements share it). Four
 * delivery jobs each hold at most one connection at a time, plus the fan-out, the API and the
 * sweepers: ten leaves headroom without crowding PostgreSQL's default 100 when several
 * processes run.
 */
export const PG_POOL_SIZE = 10;
/**
 * How long an interactive transaction may wait for a pool connection, and run. Prisma's
 * defaults (2 s and 5 s) turned a burst of writes that serialise on one identity's lock (a
 * create racing its erasure, ten at once) into 500s on a busy machine: the transactions were
 * fine, only slow to get a connection. Past these bounds something is really wrong.
 */
export const TRANSACTION_MAX_WAIT_MS = 10_000;
export const TRANSACTION_TIMEOUT_MS = 30_000;

// --- Campaign send: fan-out ------------------------------------------------------------------

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

// --- Campaign send: delivery -----------------------------------------------------------------

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
 * Outcome writes that fail because PostgreSQL is away are retried until it is back, the wait
 * doubling from 100 ms up to this: the messages are out, their outcomes must not be lost.
 * Other failures (a bug, a constraint) are tried RECORD_ATTEMPTS times by transactional sends;
 * a campaign run keeps trying while its lease holds (and sends nothing more meanwhile).
 */
export const RECORD_RETRY_MAX_MS = 5_000;
/**
 * Outcomes are written by group commit (the ones that arrived while the previous write ran go
 * together), at most this many in one transaction.
 */
export const RECORD_BATCH = 100;
/**
 * Tries of one outcome write before the job gives up (100 ms, doubling): the messages are
 * already out, so a deadlock victim or a database blip must not lose their outcomes.
 */
export const RECORD_ATTEMPTS = 6;

/**
 * BullMQ job lock of the campaign workers, and how often stalled jobs are looked for. A
 * worker renews its lock every half lock; 15 s survives a long GC pause, and a dead worker's
 * batch is picked up within about 20 s.
 */
export const CAMPAIGN_JOB_LOCK_MS = 15_000;
export const CAMPAIGN_STALLED_CHECK_MS = 5_000;
/** A job may stall this often (worker deaths) before BullMQ fails it; the watchdog still revives the campaign. */
export const CAMPAIGN_MAX_STALLED = 10;

// --- Campaign send: watchdog -----------------------------------------------------------------

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

// --- Campaign send: schedule, pause, throttle -------------------------------------------------

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

// --- Transactional mail ----------------------------------------------------------------------

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
/** Stranded messages re-enqueued per sweep; expired idempotency keys pruned are ten times it. */
export const SWEEP_BATCH = 500;

/**
 * How long an in-progress Idempotency-Key claim holds its key before another request may take
 * it over: longer than any send request takes, short enough that a client retrying after a
 * crash is not locked out for long.
 */
export const IDEMPOTENCY_CLAIM_LEASE_SECONDS = 30;

// --- Authentication --------------------------------------------------------------------------

/** api_keys.last_used_at is written at most this often per key, to keep writes off the hot path. */
export const KEY_TOUCH_INTERVAL_MS = 60_000;
/**
 * How long a process trusts an API key it verified without reading api_keys again. Changes to
 * a key reach every API process at once through PostgreSQL's notifications (ApiKeyCache);
 * this is the bound for one that was missed, i.e. the longest a revoked key can still work.
 */
export const KEY_CACHE_TTL_MS = 10_000;
/** Verified keys one process keeps; past it the oldest is dropped (read again when used). */
export const KEY_CACHE_MAX_ENTRIES = 10_000;
/** How long start-up waits for the key change listener, so the cache is on from the start. */
export const KEY_CHANGES_CONNECT_WAIT_MS = 2_000;
/** First retry of a lost key change listener, doubling up to the maximum. */
export const KEY_CHANGES_RECONNECT_MS = 1_000;
export const KEY_CHANGES_RECONNECT_MAX_MS = 30_000;
/**
 * How long a process trusts the per-account rate limits it read: they change rarely and are
 * read on every request, and a changed limit takes effect within this.
 */
export const ACCOUNT_LIMITS_CACHE_MS = 30_000;
/** A dashboard session's last_seen_at (and idle deadline) moves at most this often. */
export const SESSION_TOUCH_INTERVAL_MS = 5 * 60_000;

/**
 * How long an API request waits for Redis to take a job. The job's intent is already committed
 * in PostgreSQL (and a sweep or watchdog enqueues it later), so past this the request is
 * answered rather than held while Redis is away.
 */
export const ENQUEUE_DEADLINE_MS = 1_000;
/** While Redis is unreachable, a process says so in its log at most this often. */
export const REDIS_DOWN_LOG_EVERY_MS = 30_000;
/** How long start-up waits for the shared Redis connection before going on without it. */
export const REDIS_READY_WAIT_MS = 2_000;

// --- Outbound webhooks -----------------------------------------------------------------------

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

// --- Data in bulk: imports, exports, stored files ---------------------------------------------

/**
 * Bytes per row of a stored file (uploads, exports). Large enough that a 100 MB upload is
 * 200 inserts, small enough that reading one (pg returns bytea as hex text, twice its size)
 * costs a worker little memory.
 */
export const FILE_CHUNK_BYTES = 48 * 1024;
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
/** Attempts of an import or export job (1 s apart, doubling): they fail only if PostgreSQL does. */
export const BULK_JOB_ATTEMPTS = 10;
export const BULK_JOB_BACKOFF_MS = 1000;
/** Subscribers read per export query (keyset on id). */
export const EXPORT_BATCH = 1000;
/** How long an export's file can be downloaded. */
export const EXPORT_TTL_MS = 24 * 60 * 60_000;
/** An upload that has not completed after this long was abandoned; the sweep deletes it. */
export const ABANDONED_UPLOAD_MS = 60 * 60_000;
/** How often each worker process sweeps abandoned uploads, expired exports and stalled jobs. */
export const BULK_SWEEP_EVERY_MS = 15_000;
/** A queued or running import or export that has not advanced for this long gets its job again. */
export const BULK_IDLE_SECONDS = 60;
/** Export jobs one worker process runs at once. */
export const EXPORT_CONCURRENCY = 1;
