import { setTimeout as sleep } from 'node:timers/promises';
import { isTransientDatabaseError } from './transient-errors';

/** The first wait before trying again; it doubles up to the caller's maximum. */
const FIRST_WAIT_MS = 100;

export interface RetryTransientOptions {
  /** Tries of work failing for any other reason (a bug, a constraint) before giving up. */
  attempts: number;
  /** The longest wait between two tries. */
  maxWaitMs: number;
  /** Told before each wait, e.g. to log it. */
  onRetry?: (error: unknown, waitMs: number) => void;
  /**
   * Whether to go on after the `failures`-th failure for another reason; by default, while
   * fewer than `attempts` (a caller whose work stays safe to retry, say while it holds a
   * lease, may keep trying past them).
   */
  keepTrying?: (error: unknown, failures: number) => boolean;
}

/**
 * Runs `work` until it succeeds: while PostgreSQL is away (or a lock conflict picked it as the
 * victim) for as long as it takes, the wait doubling from 100 ms up to `maxWaitMs`; for any
 * other error `attempts` times in all. For writes that must land once something irrevocable
 * happened (a message went out): the work must be idempotent or fenced, since a try that
 * failed on a lost connection may have committed.
 */
export async function retryTransient<T>(
  work: () => Promise<T>,
  {
    attempts,
    maxWaitMs,
    onRetry,
    keepTrying = (_error, failures) => failures < attempts,
  }: RetryTransientOptions,
): Promise<T> {
  let failures = 0;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, maxWaitMs)) {
    try {
      return await work();
    } catch (error) {
      if (!isTransientDatabaseError(error) && !keepTrying(error, ++failures)) throw error;
      onRetry?.(error, wait);
      await sleep(wait);
    }
  }
}
