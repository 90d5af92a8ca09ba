import { setTimeout as sleep } from 'node:timers/promises';
import { Job, Processor, Worker, WorkerOptions } from 'bullmq';
import { workerConnection } from '../redis/redis-clients';
import { REDIS_RECONNECT_MAX_MS } from '../settings';
import { doublingDelay } from '../timing/doubling-delay';

/** The pause after a failed fetch of the next job; it doubles with each failure in a row. */
export const FETCH_RETRY_FIRST_MS = 100;
/** The longest pause between failed fetches: work resumes at most this long after they succeed. */
export const FETCH_RETRY_MAX_MS = REDIS_RECONNECT_MAX_MS;

/**
 * The BullMQ Worker of every Herald processor (installed as BullModule.workerClass).
 *
 * - All of its Redis connections are a worker's (workerConnection): the main one too, which
 *   BullMQ would otherwise build with a producer's fail-fast settings.
 * - A failed fetch of the next job pauses before the next attempt. BullMQ retries a fetch
 *   that failed with anything but a closed connection at once, and when the failure is
 *   immediate (a client that refuses commands while it reconnects) that retry loop never
 *   yields to the event loop: the timers that would reconnect the client never run, and the
 *   worker spins on the same error for good. The pause lets them run.
 */
export class HeraldWorker extends Worker {
  private failedFetches = 0;
  private readonly stopPausing = new AbortController();

  constructor(name: string, processor: Processor | string | null | undefined, opts: WorkerOptions) {
    super(name, processor, { ...opts, connection: workerConnection(opts.connection) });
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job> {
    try {
      const job = await super.moveToActive(token, name);
      this.failedFetches = 0;
      return job;
    } catch (error) {
      this.failedFetches++;
      await this.pauseAfterFailedFetch();
      throw error;
    }
  }

  override close(force?: boolean): Promise<void> {
    this.stopPausing.abort();
    return super.close(force);
  }

  private async pauseAfterFailedFetch(): Promise<void> {
    const ms = doublingDelay(this.failedFetches, FETCH_RETRY_FIRST_MS, FETCH_RETRY_MAX_MS);
    // Closing ends the pause: shutdown never waits for it.
    await sleep(ms, undefined, { signal: this.stopPausing.signal }).catch(() => undefined);
  }
}
