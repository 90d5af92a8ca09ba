import { Logger } from '@nestjs/common';
import { WARM_UP_HOLD_MAX_MS } from '../settings';
import { waitAtMost } from '../timing/wait-at-most';

/**
 * The warm-ups of this process's send paths (each worker module's first run of its statements
 * against ids that match nothing). Queue workers take no job before all of them have ended (or
 * WARM_UP_HOLD_MAX_MS has passed): a job taken meanwhile would pay the cold path itself, and
 * every job behind it would wait. Only work on this host belongs here: a warm-up that waits on
 * the network (the relay's greeting) would hold the workers as long as the network does.
 */
const running = new Set<Promise<void>>();
const logger = new Logger('WorkerWarmUps');

/**
 * Runs `warmUp` and holds the queue workers back until it has ended, however it ends: a
 * warm-up is only an optimisation, so a failure is logged (naming `what` it warmed) and the
 * workers start all the same. Called from a provider's onModuleInit, so that every warm-up is
 * registered before the first worker asks (they start in onApplicationBootstrap).
 */
export function holdQueueWorkersFor(what: string, warmUp: () => Promise<unknown>): void {
  const warming = warmUp()
    .then(
      () => undefined,
      (error: unknown) => logger.warn(`${what}: warm-up skipped: ${String(error)}`),
    )
    // An ended warm-up holds nothing: only the running ones are kept (a process, or a test
    // run building many, may start workers more than once).
    .finally(() => running.delete(warming));
  running.add(warming);
}

/**
 * Resolves once every warm-up still running has ended, or after WARM_UP_HOLD_MAX_MS, whichever
 * comes first.
 */
export async function warmUpsEnded(): Promise<void> {
  await waitAtMost(Promise.all(running), WARM_UP_HOLD_MAX_MS);
}

/** What a worker process logs (at info) once its queue workers take jobs: warm, and started. */
export const TAKING_JOBS = 'taking jobs';
