/**
 * The warm-ups of this process's send paths (each worker module's first run of its statements
 * against ids that match nothing). Queue workers take no job before all of them have ended: a
 * job taken meanwhile would pay the cold path itself, and every job behind it would wait.
 */
const pending: Promise<unknown>[] = [];

/**
 * Holds the queue workers back until `warmUp` has ended, however it ends (a warm-up is only an
 * optimisation). Called from a provider's onModuleInit, so that every warm-up is registered
 * before the first worker asks (they start in onApplicationBootstrap).
 */
export function holdQueueWorkersFor(warmUp: Promise<unknown>): void {
  pending.push(warmUp.catch(() => undefined));
}

/** Resolves once every warm-up registered so far has ended. */
export function warmUpsEnded(): Promise<unknown> {
  return Promise.all(pending);
}

/** What a worker process logs (at info) once its queue workers take jobs: warm, and started. */
export const TAKING_JOBS = 'taking jobs';
