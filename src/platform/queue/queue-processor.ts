import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job } from 'bullmq';
import { reportStoreError } from '../logging/store-outage-log';
import { stopWaitingForQueueStore } from '../store/queue-pool';
import { CAMPAIGN_JOB_LOCK_MS, CAMPAIGN_MAX_STALLED, CAMPAIGN_STALLED_CHECK_MS } from '../settings';
import { warmUpsEnded } from './worker-warm-ups';

/** How long shutdown waits to learn whether Redis answers before forcing the worker closed. */
const REDIS_PROBE_MS = 1000;

/** This process's queue processors, for a shutdown to stop them before anything else closes. */
const processors = new Set<QueueProcessor>();

/**
 * Stops every queue worker of the process from taking jobs and waits for the jobs they hold
 * to end (finished, or handed back to the queue). Runs before Nest's own close, whose destroy
 * hooks would otherwise end the Redis and PostgreSQL clients under jobs still running.
 */
export async function closeQueueWorkers(): Promise<void> {
  await Promise.all([...processors].map((processor) => processor.closeWorker()));
}

/**
 * What every BullMQ processor of Herald shares: its worker takes jobs once the process's
 * warm-ups have ended (worker-warm-ups.ts), its store errors (Redis, or PostgreSQL on the
 * PostgreSQL store) go to the outage log (one line per interval while the store is away, not a
 * trace per reconnect), and its close never hangs on a Redis that is gone.
 */
export abstract class QueueProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  protected readonly logger = new Logger(this.constructor.name);
  private closed = false;

  /** `workerName`: how the outage log names it, e.g. "the import worker". */
  protected constructor(private readonly workerName: string) {
    super();
    processors.add(this);
  }

  /** Starts taking jobs (workerOptions leaves that to here) once the warm-ups have ended. */
  async onApplicationBootstrap(): Promise<void> {
    await warmUpsEnded();
    // A shutdown that came during the warm-up has closed the worker already.
    if (this.closed) return;
    this.worker.run().catch((error: unknown) => reportStoreError(this.workerName, error));
  }

  /** The worker's own errors (its store connections): reported once per interval. */
  @OnWorkerEvent('error')
  onError(error: Error): void {
    reportStoreError(this.workerName, error);
  }

  /**
   * Runs before @nestjs/bullmq's own (graceful) close, which in BullMQ 6 waits forever when
   * Redis cannot be reached and would hang shutdown. With Redis reachable, close gracefully
   * (let running jobs finish); without it, force: an interrupted job is recovered anyway
   * (its lock lapses and BullMQ hands it to another worker).
   */
  async onModuleDestroy(): Promise<void> {
    await this.closeWorker();
    processors.delete(this);
  }

  /** See onModuleDestroy; safe to call again (BullMQ's close is). */
  async closeWorker(): Promise<void> {
    this.closed = true;
    // Queues on PostgreSQL that still wait for it to answer would hold the close up as well.
    stopWaitingForQueueStore();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), REDIS_PROBE_MS);
    });
    const reachable = await Promise.race([
      this.worker.waitUntilReady().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
    clearTimeout(timer);
    await this.worker.close(!reachable);
  }
}

/** Whether this run of the job is its last attempt: after it fails, BullMQ gives up on it. */
export function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * The worker options of every queue: a dead worker's job is noticed within about 20 s, not
 * BullMQ's default 30 to 60 s, and handed to another worker (docs/decisions.md); the worker
 * starts when QueueProcessor says, not when it is built.
 */
export function workerOptions(concurrency: number) {
  return {
    autorun: false,
    concurrency,
    lockDuration: CAMPAIGN_JOB_LOCK_MS,
    stalledInterval: CAMPAIGN_STALLED_CHECK_MS,
    maxStalledCount: CAMPAIGN_MAX_STALLED,
  };
}
