import { Injectable } from '@nestjs/common';
import { BulkJobWatchdog } from '../platform/queue/bulk-job-watchdog';
import { SWEEP_BATCH } from '../platform/settings';
import { ABANDONED_UPLOAD_MS } from './imports.settings';
import { FileStore } from '../platform/storage/file-store';
import { ImportQueue } from './import-queue';
import { ImportsRepository } from './imports.repository';

/**
 * Adds the job again of imports that stalled (see BulkJobWatchdog: the same id is harmless if
 * the job still exists), and deletes uploads that never completed.
 */
@Injectable()
export class ImportWatchdog extends BulkJobWatchdog {
  constructor(
    imports: ImportsRepository,
    queue: ImportQueue,
    private readonly files: FileStore,
  ) {
    super('import', imports, queue);
  }

  protected async tidy(): Promise<void> {
    const abandoned = await this.files.deleteAbandonedAcrossAccounts(
      new Date(Date.now() - ABANDONED_UPLOAD_MS),
      SWEEP_BATCH,
    );
    if (abandoned > 0) this.logger.log(`deleted ${abandoned} abandoned uploads`);
  }
}
