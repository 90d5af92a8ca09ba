import type { AccountId } from '../database/account-id';
import { BULK_IDLE_SECONDS, BULK_SWEEP_EVERY_MS, SWEEP_BATCH } from '../settings';
import { PeriodicService } from '../timing/periodic-task';

/** The table of a bulk job (an import, an export): PostgreSQL is its record, not Redis. */
export interface BulkJobRecords {
  /** Queued or running jobs of every account that have not advanced for `idleSeconds`. */
  stalledAcrossAccounts(
    idleSeconds: number,
    limit: number,
  ): Promise<{ id: string; accountId: AccountId }[]>;
}

export interface BulkJobQueue {
  /** Adds the job; harmless when it is still there (same job id). */
  enqueue(accountId: AccountId, id: string): Promise<void>;
}

/**
 * On a timer in every worker process: adds the job again for bulk jobs that are queued or
 * running but have not advanced for a while (a job lost with Redis, an enqueue that failed
 * after the 202, a dead worker), then does the kind's own tidying.
 */
export abstract class BulkJobWatchdog extends PeriodicService {
  protected constructor(
    private readonly kind: string,
    private readonly records: BulkJobRecords,
    private readonly jobs: BulkJobQueue,
  ) {
    super(`${kind} watchdog tick`, BULK_SWEEP_EVERY_MS);
  }

  /** What else the kind's watchdog does on each tick (expiry, abandoned uploads). */
  protected abstract tidy(): Promise<void>;

  protected async pass(): Promise<void> {
    for (const stalled of await this.records.stalledAcrossAccounts(
      BULK_IDLE_SECONDS,
      SWEEP_BATCH,
    )) {
      this.logger.warn(
        `${this.kind} ${stalled.id} idle for ${BULK_IDLE_SECONDS}s; adding its job again`,
      );
      await this.jobs.enqueue(stalled.accountId, stalled.id);
    }
    await this.tidy();
  }
}
