import { BullModule, InjectQueue } from '@nestjs/bullmq';
import { Injectable, Module } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { AccountId } from '../platform/database/account-id';
import { QUEUES } from '../platform/queue/queue.module';
import { reportStoreError } from '../platform/logging/store-outage-log';
import { BULK_JOB_ATTEMPTS, BULK_JOB_BACKOFF_MS } from '../platform/settings';

/** Ids only: the file stays in PostgreSQL. */
export interface ExportJob {
  accountId: string;
  exportId: string;
}

/**
 * The export queue's producer. The job id is the export's, so adding it again (the watchdog,
 * after a lost Redis) is harmless; finished jobs are removed so it can be added again later.
 */
@Injectable()
export class ExportQueue {
  constructor(@InjectQueue(QUEUES.subscriberExport) private readonly queue: Queue<ExportJob>) {
    queue.on('error', (error) => reportStoreError('the export queue', error));
  }

  async enqueue(accountId: AccountId, exportId: string): Promise<void> {
    await this.queue.add(
      'export',
      { accountId, exportId },
      {
        jobId: exportId,
        attempts: BULK_JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: BULK_JOB_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }
}

@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.subscriberExport })],
  providers: [ExportQueue],
  exports: [ExportQueue, BullModule],
})
export class ExportQueuesModule {}
