import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { QUEUES } from '../platform/queue/queue.module';
import { reportStoreError } from '../platform/logging/store-outage-log';
import { TRANSACTIONAL_ATTEMPTS, TRANSACTIONAL_BACKOFF_MS } from './transactional.settings';
import type { TransactionalMessageId } from './transactional-messages.repository';

/**
 * A job names its message and nothing else: no address or content ever reaches Redis. Read
 * back, `accountId` is plain data again: the processor parses it before any query.
 */
export interface TransactionalJob {
  accountId: string;
  messageId: string;
}

export const SEND_JOB = 'send';

/**
 * Temporary failures retry with exponential backoff (see the settings). Finished jobs are
 * removed, so re-adding a message whose job vanished (the sweep) is possible, while
 * jobId = message id keeps a waiting, delayed or running job from doubling.
 */
export const SEND_JOB_OPTIONS: JobsOptions = {
  attempts: TRANSACTIONAL_ATTEMPTS,
  backoff: { type: 'exponential', delay: TRANSACTIONAL_BACKOFF_MS },
  removeOnComplete: true,
  removeOnFail: true,
};

@Injectable()
export class TransactionalQueue {
  constructor(@InjectQueue(QUEUES.transactional) private readonly queue: Queue<TransactionalJob>) {
    queue.on('error', (error) => reportStoreError('the transactional queue', error));
  }

  async enqueue(messages: TransactionalMessageId[]): Promise<void> {
    if (messages.length === 0) return;
    await this.queue.addBulk(
      messages.map(({ accountId, id }) => ({
        name: SEND_JOB,
        data: { accountId, messageId: id },
        opts: { ...SEND_JOB_OPTIONS, jobId: id },
      })),
    );
  }
}
