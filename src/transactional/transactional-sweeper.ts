import { Injectable } from '@nestjs/common';
import { PeriodicService } from '../platform/timing/periodic-task';
import { SWEEP_BATCH } from '../platform/settings';
import { STRANDED_AFTER_MS, SWEEP_EVERY_MS } from './transactional.settings';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { TransactionalMessagesRepository } from './transactional-messages.repository';
import { TransactionalQueue } from './transactional-queue';

/**
 * Recovery, in every worker process on a timer (not a Redis-scheduled job, which a Redis
 * that lost its data would lose too). It requeues claims whose lease ran out (their worker
 * died or froze) and adds their jobs at once, re-adds the jobs of queued messages that have
 * none (a crash between commit and enqueue, a Redis restart), and prunes expired idempotency
 * keys. Every step is idempotent, so any number of workers
 * may sweep at once.
 */
@Injectable()
export class TransactionalSweeper extends PeriodicService {
  constructor(
    private readonly messages: TransactionalMessagesRepository,
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly queue: TransactionalQueue,
  ) {
    super('sweep', SWEEP_EVERY_MS);
  }

  protected async pass(): Promise<void> {
    const { requeued } = await this.sweep();
    if (requeued > 0) this.logger.log(`re-enqueued ${requeued} stranded message(s)`);
  }

  /** One pass; `strandedAfterMs` is shortened by tests. */
  async sweep(strandedAfterMs = STRANDED_AFTER_MS): Promise<{ requeued: number; pruned: number }> {
    const stranded = await this.messages.findStrandedAcrossAccounts(strandedAfterMs, SWEEP_BATCH);
    await this.queue.enqueue(stranded);
    const pruned = await this.idempotencyKeys.pruneExpiredAcrossAccounts(SWEEP_BATCH * 10);
    return { requeued: stranded.length, pruned };
  }
}
