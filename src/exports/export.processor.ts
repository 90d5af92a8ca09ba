import { Processor } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { parseAccountId } from '../platform/database/account-id';
import { isLastAttempt, QueueProcessor, workerOptions } from '../platform/queue/queue-processor';
import { QUEUES } from '../platform/queue/queue.module';
import { EXPORT_CONCURRENCY } from './exports.settings';
import { ExportJob } from './export-queue';
import { ExportRunner } from './export-runner';

/**
 * Runs export jobs. A worker that dies mid-export loses its job lock; BullMQ hands the job to
 * another worker within about 20 s, which writes the file again from the first row.
 */
@Processor(QUEUES.subscriberExport, workerOptions(EXPORT_CONCURRENCY))
export class ExportProcessor extends QueueProcessor {
  constructor(private readonly runner: ExportRunner) {
    super('the export worker');
  }

  async process(job: Job<ExportJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    try {
      await this.runner.run(accountId, job.data.exportId);
    } catch (error) {
      this.logger.error(
        `export ${job.data.exportId} attempt ${job.attemptsMade + 1} failed: ${String(error)}`,
      );
      if (isLastAttempt(job)) {
        await this.runner.giveUp(accountId, job.data.exportId);
      }
      throw error;
    }
  }
}
