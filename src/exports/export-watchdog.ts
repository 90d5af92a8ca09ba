import { Injectable } from '@nestjs/common';
import { PgPool } from '../platform/database/pg-pool';
import { BulkJobWatchdog } from '../platform/queue/bulk-job-watchdog';
import { SWEEP_BATCH } from '../platform/settings';
import { FileStore } from '../platform/storage/file-store';
import { ExportQueue } from './export-queue';
import { ExportsRepository } from './exports.repository';

/**
 * Adds the job again of exports that stalled (see BulkJobWatchdog), and expires exports past
 * their time, deleting their files.
 */
@Injectable()
export class ExportWatchdog extends BulkJobWatchdog {
  constructor(
    private readonly exports: ExportsRepository,
    queue: ExportQueue,
    private readonly files: FileStore,
    private readonly pool: PgPool,
  ) {
    super('export', exports, queue);
  }

  protected async tidy(): Promise<void> {
    await this.pool.transaction(async (client) => {
      for (const { accountId, fileId } of await this.exports.expireDueAcrossAccounts(
        client,
        SWEEP_BATCH,
      )) {
        if (fileId) await this.files.delete(accountId, fileId, client);
      }
    });
  }
}
