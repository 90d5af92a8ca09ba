import { Injectable, Logger } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { ErasureService } from '../erasure/erasure.service';
import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { neutralizeCell } from '../platform/csv/formula-cells';
import { PgPool } from '../platform/database/pg-pool';
import { EXPORT_BATCH, EXPORT_TTL_MS } from './exports.settings';
import { FileStore } from '../platform/storage/file-store';
import { SegmentsService } from '../segments/segments.service';
import { exportHeader, subscriberCells } from '../subscribers/subscriber-csv';
import { SubscribersService } from '../subscribers/subscribers.service';
import { ExportsRepository } from './exports.repository';

/** Custom fields become columns; past this many keys an export keeps the first ones. */
const MAX_CUSTOM_COLUMNS = 1000;
/** Runs of an export that an erasure overtook before it gives up (it is then failed). */
const MAX_RUNS = 3;

/**
 * Writes one export: the account's subscribers (or one segment's) read by keyset in pages,
 * written as CSV straight into the file store as they are read. An export has no
 * checkpoint: a worker that dies leaves a file that never completed (the sweep deletes it),
 * and the job starts again from the first row.
 */
@Injectable()
export class ExportRunner {
  private readonly logger = new Logger(ExportRunner.name);

  constructor(
    private readonly exports: ExportsRepository,
    private readonly subscribers: SubscribersService,
    private readonly segments: SegmentsService,
    private readonly files: FileStore,
    private readonly erasure: ErasureService,
    private readonly pool: PgPool,
  ) {}

  async run(accountId: AccountId, exportId: string): Promise<void> {
    for (let run = 1; run <= MAX_RUNS; run++) {
      const job = await this.exports.start(accountId, exportId);
      if (!job) return;
      const filter = await this.segments.audienceSql(accountId, job.segmentId);
      if (!filter) {
        await this.exports.fail(accountId, exportId, 'The segment no longer exists.');
        return;
      }
      const startedAt = new Date();
      let rows = 0;
      const file = await this.files.write(
        accountId,
        'export',
        this.csv(accountId, filter, (count) => {
          rows = count;
          // Progress for the dashboard, without waiting on it.
          if (count % (EXPORT_BATCH * 10) === 0)
            void this.exports.progress(accountId, exportId, count).catch(() => undefined);
        }),
      );
      const finished = await this.pool.transaction(async (client) => {
        // Someone erased meanwhile may be in the file: it is not handed out.
        if (await this.erasure.anyErasedSince(accountId, startedAt, client)) return false;
        return this.exports.finish(client, accountId, exportId, {
          fileId: file.id,
          rows,
          expiresAt: new Date(Date.now() + EXPORT_TTL_MS),
        });
      });
      if (finished) return;
      await this.files.delete(accountId, file.id);
      this.logger.log(`export ${exportId}: an erasure happened while it ran; running it again`);
    }
    await this.exports.fail(
      accountId,
      exportId,
      'Erasures kept changing the subscribers; try again.',
    );
  }

  /** The last attempt failed. */
  async giveUp(accountId: AccountId, exportId: string): Promise<void> {
    await this.exports.fail(
      accountId,
      exportId,
      'The export stopped after repeated failures on the server; try again.',
    );
  }

  /** The CSV text, one page of subscribers at a time, as the file store asks for more. */
  private async *csv(
    accountId: AccountId,
    filter: Prisma.Sql,
    onRows: (rows: number) => void,
  ): AsyncGenerator<string> {
    const customKeys = await this.subscribers.customKeys(accountId, filter, MAX_CUSTOM_COLUMNS);
    yield stringify([exportHeader(customKeys).map(neutralizeCell)]);
    let afterId: string | null = null;
    let rows = 0;
    for (;;) {
      const page = await this.subscribers.exportPage(accountId, filter, afterId, EXPORT_BATCH);
      if (page.length > 0) {
        yield stringify(page.map((row) => subscriberCells(row, customKeys).map(neutralizeCell)));
      }
      rows += page.length;
      onRows(rows);
      if (page.length < EXPORT_BATCH) return;
      afterId = page[page.length - 1].id;
    }
  }
}
