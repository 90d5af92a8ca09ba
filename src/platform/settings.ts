/**
 * The platform's tuning constants: the PostgreSQL pool, Redis, queued jobs, stored files and
 * the retry of writes that must land. Each module keeps its own knobs beside its code (a
 * `<module>.settings.ts`); none is a contract with clients (those are limits checked on input,
 * kept beside their DTOs), and each comment says what the trade-off is.
 */

// --- PostgreSQL ------------------------------------------------------------------------------

/**
 * The default of DB_POOL_SIZE: connections in the process's one pg pool (Prisma and the hot statements share it). Four
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

/**
 * The longest a process's boot waits for its first Prisma query (see PrismaService): its query
 * compiler is loaded well within this, and a database slow to answer must not hold the boot.
 */
export const PRISMA_WARM_UP_MAX_MS = 2_000;

// --- Writes that must land ---------------------------------------------------------------------

/**
 * Outcome writes that fail because PostgreSQL is away are retried until it is back, the wait
 * doubling from 100 ms up to this: the messages are out, their outcomes must not be lost.
 * Other failures (a bug, a constraint) are tried RECORD_ATTEMPTS times by transactional sends;
 * a campaign run keeps trying while its lease holds (and sends nothing more meanwhile).
 */
export const RECORD_RETRY_MAX_MS = 5_000;

/**
 * Tries of one outcome write before the job gives up (100 ms, doubling): the messages are
 * already out, so a deadlock victim or a database blip must not lose their outcomes.
 */
export const RECORD_ATTEMPTS = 6;

// --- Queued jobs (BullMQ) --------------------------------------------------------------------

/**
 * BullMQ job lock of the queue workers (campaign, transactional, import, export), and how
 * often stalled jobs are looked for. A worker renews its lock every half lock; 15 s survives a long GC pause, and a dead worker's
 * batch is picked up within about 20 s.
 */
export const CAMPAIGN_JOB_LOCK_MS = 15_000;
export const CAMPAIGN_STALLED_CHECK_MS = 5_000;

/** A job may stall this often (worker deaths) before BullMQ fails it; the watchdog still revives the campaign. */
export const CAMPAIGN_MAX_STALLED = 10;

/**
 * The longest a process's queue workers wait for its warm-ups before taking jobs anyway: a
 * warm-up saves a cold start of a few hundred ms, and a PostgreSQL that is slow to answer at
 * boot must not hold the send path back for longer than that saves.
 */
export const WARM_UP_HOLD_MAX_MS = 5_000;

/**
 * Rows a recovery sweep takes per pass (stranded transactional messages, stalled imports and
 * exports); expired idempotency keys pruned are ten times it.
 */
export const SWEEP_BATCH = 500;

/**
 * How long an API request waits for Redis to take a job. The job's intent is already committed
 * in PostgreSQL (and a sweep or watchdog enqueues it later), so past this the request is
 * answered rather than held while Redis is away.
 */
export const ENQUEUE_DEADLINE_MS = 1_000;

// --- Redis -----------------------------------------------------------------------------------

/**
 * While the shared store (Redis, or PostgreSQL for the queues on the PostgreSQL store) is
 * unreachable, a process says so in its log at most this often.
 */
export const STORE_DOWN_LOG_EVERY_MS = 30_000;

/**
 * The pauses between attempts to reach Redis again (every client, whatever its role): the
 * first, doubled after each failed attempt up to the longest, so that after an outage or a
 * Sentinel promotion work resumes at most REDIS_RECONNECT_MAX_MS after Redis answers.
 */
export const REDIS_RECONNECT_FIRST_MS = 200;
export const REDIS_RECONNECT_MAX_MS = 2_000;

/** How long start-up waits for the shared Redis connection before going on without it. */
export const REDIS_READY_WAIT_MS = 2_000;

// --- Stored files, and the jobs of data in bulk (imports, exports) ----------------------------

/**
 * Bytes per row of a stored file (uploads, exports). Large enough that a 100 MB upload is
 * 200 inserts, small enough that reading one (pg returns bytea as hex text, twice its size)
 * costs a worker little memory.
 */
export const FILE_CHUNK_BYTES = 48 * 1024;

/** Attempts of an import or export job (1 s apart, doubling): they fail only if PostgreSQL does. */
export const BULK_JOB_ATTEMPTS = 10;
export const BULK_JOB_BACKOFF_MS = 1000;

/** How often each worker process sweeps abandoned uploads, expired exports and stalled jobs. */
export const BULK_SWEEP_EVERY_MS = 15_000;

/** A queued or running import or export that has not advanced for this long gets its job again. */
export const BULK_IDLE_SECONDS = 60;

// --- Rate limits -----------------------------------------------------------------------------

/**
 * How long a process trusts the per-account rate limits it read: they change rarely and are
 * read on every request, and a changed limit takes effect within this.
 */
export const ACCOUNT_LIMITS_CACHE_MS = 30_000;
