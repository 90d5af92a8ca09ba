import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PgPool } from '../platform/database/pg-pool';
import { BULK_IDLE_SECONDS, BULK_SWEEP_EVERY_MS, SWEEP_BATCH } from '../platform/settings';
import { FileStore } from '../platform/storage/file-store';
import { ExportQueue } from './export-queue';
import { ExportsRepository } from './exports.repository';

/**
 * On a timer in every worker process: adds the job again for exports that are queued or
 * running but have not advanced for a minute (a lost job, a dead worker), and expires exports
 * past their time, deleting their files.
 */
@Injectable()
export class ExportWatchdog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExportWatchdog.name);
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly exports: ExportsRepository,
    private readonly queue: ExportQueue,
    private readonly files: FileStore,
    private readonly pool: PgPool,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), BULK_SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const stalled of await this.exports.stalled(BULK_IDLE_SECONDS, SWEEP_BATCH)) {
        this.logger.warn(
          `export ${stalled.id} idle for ${BULK_IDLE_SECONDS}s; adding its job again`,
        );
        await this.queue.enqueue(stalled.accountId, stalled.id);
      }
      await this.pool.transaction(async (client) => {
        for (const { accountId, fileId } of await this.exports.expireDue(client, SWEEP_BATCH)) {
          if (fileId) await this.files.delete(accountId, fileId, client);
        }
      });
    } catch (error) {
      this.logger.error(`export watchdog tick failed: ${String(error)}`);
    } finally {
      this.running = false;
    }
  }
}
