/** The automation engine's tuning constants: passes, batches and sweeps. */

/**
 * How often the engine looks for due steps. A due step runs within this plus one pass's
 * work, well inside the promised 5 s.
 */
export const ENGINE_TICK_MS = 500;

/**
 * Runs claimed per engine transaction, and so the size of each delivery batch it hands to the
 * campaign delivery: the campaign send's own batch size (250), so that runs due at once are
 * delivered by as many jobs in parallel as a campaign of the same size, the first of them
 * leaving as soon as the first transaction commits.
 */
export const ENGINE_BATCH = 250;

/** Batches one pass may take before it lets the timer breathe (the next pass goes on). */
export const ENGINE_BATCHES_PER_PASS = 80;

/** Steps one run may go through in a pass; validation forbids loops without a wait. */
export const MAX_HOPS_PER_PASS = 100;

/** How often waiting runs of subscribers who stopped being mailable are made to leave. */
export const EXITS_TICK_MS = 2_000;

/** Runs made to leave per exits transaction. */
export const EXITS_BATCH = 5_000;

/**
 * How often new subscribers are looked for, and how far back each look reaches: a creation
 * committed late (a long import) still falls inside the window; the trigger key keeps a
 * subscriber from entering twice.
 */
export const CREATED_TICK_MS = 2_000;
export const CREATED_LOOKBACK_MS = 120_000;

/** How often segment entries are looked for (the contract asks for at least every 60 s). */
export const SEGMENT_TICK_MS = 5_000;

/** How often date triggers are checked: a yearly date fires within this of its time. */
export const DATE_TICK_MS = 10_000;

/** Subscribers enrolled per trigger transaction. */
export const ENROL_BATCH = 5_000;
