import { Processor } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { parseAccountId } from '../platform/database/account-id';
import { isLastAttempt, QueueProcessor, workerOptions } from '../platform/queue/queue-processor';
import { QUEUES } from '../platform/queue/queue.module';
import { IMPORT_CONCURRENCY } from './imports.settings';
import { ImportJob } from './import-queue';
import { ImportRunner } from './import-runner';

/**
 * Runs import jobs. A worker that dies mid-import loses its job lock; BullMQ hands the job to
 * another worker (or the same one restarted) within about 20 s, and the runner resumes from
 * the import's checkpoint. Job locks and stall checks are the campaign workers', for the same
 * reasons (docs/decisions.md).
 */
@Processor(QUEUES.subscriberImport, workerOptions(IMPORT_CONCURRENCY))
export class ImportProcessor extends QueueProcessor {
  constructor(private readonly runner: ImportRunner) {
    super('the import worker');
  }

  async process(job: Job<ImportJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    try {
      await this.runner.run(accountId, job.data.importId);
    } catch (error) {
      this.logger.error(
        `import ${job.data.importId} attempt ${job.attemptsMade + 1} failed: ${String(error)}`,
      );
      if (isLastAttempt(job)) {
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
