import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ABANDONED_UPLOAD_MS } from './imports.settings';
import { BULK_IDLE_SECONDS, BULK_SWEEP_EVERY_MS, SWEEP_BATCH } from '../platform/settings';
import { FileStore } from '../platform/storage/file-store';
import { ImportQueue } from './import-queue';
import { ImportsRepository } from './imports.repository';

/**
 * PostgreSQL is the record of imports, not Redis. Every worker process looks, on a timer, for
 * imports that are queued or running but have not advanced for a minute (a job lost with
 * Redis, an enqueue that failed after the 202) and adds their job again (same id: harmless
 * if it still exists). It also deletes uploads that never completed.
 */
@Injectable()
export class ImportWatchdog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ImportWatchdog.name);
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly imports: ImportsRepository,
    private readonly queue: ImportQueue,
    private readonly files: FileStore,
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
      for (const stalled of await this.imports.stalled(BULK_IDLE_SECONDS, SWEEP_BATCH)) {
        this.logger.warn(
          `import ${stalled.id} idle for ${BULK_IDLE_SECONDS}s; adding its job again`,
        );
        await this.queue.enqueue(stalled.accountId, stalled.id);
      }
      const abandoned = await this.files.deleteAbandoned(
        new Date(Date.now() - ABANDONED_UPLOAD_MS),
        SWEEP_BATCH,
      );
      if (abandoned > 0) this.logger.log(`deleted ${abandoned} abandoned uploads`);
    } catch (error) {
      this.logger.error(`import watchdog tick failed: ${String(error)}`);
    } finally {
      this.running = false;
    }
  }
}
