import { BullModule, InjectQueue } from '@nestjs/bullmq';
import { Injectable, Module } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { AccountId } from '../platform/database/account-id';
import { QUEUES } from '../platform/queue/queue.module';
import { reportStoreError } from '../platform/logging/store-outage-log';
import { BULK_JOB_ATTEMPTS, BULK_JOB_BACKOFF_MS } from '../platform/settings';

/** Ids only: the file and the rows stay in PostgreSQL. */
export interface ImportJob {
  accountId: string;
  importId: string;
}

/**
 * The import queue's producer. The job id is the import's, so adding it again (the watchdog,
 * after a lost Redis) is harmless; finished jobs are removed so it can be added again later.
 */
@Injectable()
export class ImportQueue {
  constructor(@InjectQueue(QUEUES.subscriberImport) private readonly queue: Queue<ImportJob>) {
    queue.on('error', (error) => reportStoreError('the import queue', error));
  }

  async enqueue(accountId: AccountId, importId: string): Promise<void> {
    await this.queue.add(
      'import',
      { accountId, importId },
      {
        jobId: importId,
        attempts: BULK_JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: BULK_JOB_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }
}

@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.subscriberImport })],
  providers: [ImportQueue],
  exports: [ImportQueue, BullModule],
})
export class ImportQueuesModule {}
