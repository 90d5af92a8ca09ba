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
import { IMPORT_CONCURRENCY } from './imports.settings';
import { ImportJob } from './import-queue';
import { ImportRunner } from './import-runner';

/**
 * Runs import jobs. A worker that dies mid-import loses its job lock; BullMQ hands the job to
 * another worker (or the same one restarted) within about 20 s, and the runner resumes from
 * the import's checkpoint. Job locks and stall checks are the campaign workers', for the same
 * reasons (docs/decisions.md).
 */
@Processor(QUEUES.subscriberImport, {
  concurrency: IMPORT_CONCURRENCY,
  lockDuration: CAMPAIGN_JOB_LOCK_MS,
  stalledInterval: CAMPAIGN_STALLED_CHECK_MS,
  maxStalledCount: CAMPAIGN_MAX_STALLED,
})
export class ImportProcessor extends WorkerHost {
  private readonly logger = new Logger(ImportProcessor.name);

  constructor(private readonly runner: ImportRunner) {
    super();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    reportRedisError('the import worker', error);
  }

  async process(job: Job<ImportJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    try {
      await this.runner.run(accountId, job.data.importId);
    } catch (error) {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logger.error(
        `import ${job.data.importId} attempt ${job.attemptsMade + 1} failed: ${String(error)}`,
      );
      if (last) {
        await this.runner.giveUp(
          accountId,
          job.data.importId,
          'The import stopped after repeated failures on the server; try again.',
        );
      }
      throw error;
    }
  }
}
