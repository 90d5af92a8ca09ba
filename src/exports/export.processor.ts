import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { parseAccountId } from '../platform/database/account-id';
import { QUEUES } from '../platform/queue/queue.module';
import { reportRedisError } from '../platform/redis/redis-outage-log';
import {
  CAMPAIGN_JOB_LOCK_MS,
  CAMPAIGN_MAX_STALLED,
  CAMPAIGN_STALLED_CHECK_MS,
} from '../platform/settings';
import { EXPORT_CONCURRENCY } from './exports.settings';
import { ExportJob } from './export-queue';
import { ExportRunner } from './export-runner';

/**
 * Runs export jobs. A worker that dies mid-export loses its job lock; BullMQ hands the job to
 * another worker within about 20 s, which writes the file again from the first row.
 */
@Processor(QUEUES.subscriberExport, {
  concurrency: EXPORT_CONCURRENCY,
  lockDuration: CAMPAIGN_JOB_LOCK_MS,
  stalledInterval: CAMPAIGN_STALLED_CHECK_MS,
  maxStalledCount: CAMPAIGN_MAX_STALLED,
})
export class ExportProcessor extends WorkerHost {
  private readonly logger = new Logger(ExportProcessor.name);

  constructor(private readonly runner: ExportRunner) {
    super();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    reportRedisError('the export worker', error);
  }

  async process(job: Job<ExportJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    try {
      await this.runner.run(accountId, job.data.exportId);
    } catch (error) {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logger.error(
        `export ${job.data.exportId} attempt ${job.attemptsMade + 1} failed: ${String(error)}`,
      );
      if (last) {
        await this.runner.giveUp(accountId, job.data.exportId);
      }
      throw error;
    }
  }
}
