import { Injectable, Logger } from '@nestjs/common';
import type { AuditActor } from '../audit/audit-log';
import type { AccountId } from '../platform/database/account-id';
import { PgPool } from '../platform/database/pg-pool';
import type { ErrorDetail } from '../platform/errors/api-errors';
import { IMPORT_BATCH } from './imports.settings';
import { FileStore } from '../platform/storage/file-store';
import { SubscriberBulkWriter, BulkItem } from '../subscribers/subscriber-bulk-writer';
import { recordToBody } from '../subscribers/subscriber-csv';
import { stageFields, stageLine, StagedBatch, StageShape } from '../subscribers/subscriber-stage';
import type { CreateSubscriberDto } from '../subscribers/subscriber.dto';
import { newIds } from '../platform/crypto/ids';
import { CsvItem, csvBatches } from './csv-records';
import { FastCsvRows } from './fast-csv-row';
import { CsvRowCounter } from './csv-row-count';
import { BatchCounts, ImportRowError, ImportRun, ImportsRepository } from './imports.repository';
import type { SubscriberRowCheck } from './subscriber-row-check';

/** At most this many errors are kept per row: a row wrong everywhere says enough in ten. */
const ERRORS_PER_ROW = 10;

/**
 * Rows prepared between two turns of the event loop: about half a millisecond of work. The
 * batch being written waits that long at most for each of its replies to be taken, and a
 * batch's write is several round trips in a row, the longest part of an import.
 */
const PREPARE_SLICE = 25;

/**
 * Batches handed to the writes and not yet written while the next is prepared, at most. With
 * one, the worker stopped preparing whenever a batch was ready before the previous write had
 * ended, and PostgreSQL then waited in turn for the next batch: each idled a third of the time.
 */
const BATCHES_AHEAD = 2;

interface PreparedBatch {
  /** Valid rows, each email once: decided and written by one statement. */
  staged: StagedBatch;
  /** The normalised emails of the batch's valid rows so far. */
  emails: Set<string>;
  /** Valid rows written the other way: an email met earlier in the batch, in order. */
  later: BulkItem[];
  refusals: { row: number; details: ErrorDetail[] }[];
}

function newPreparedBatch(shape: StageShape): PreparedBatch {
  return { staged: new StagedBatch(shape), emails: new Set(), later: [], refusals: [] };
}

/** Another runner has moved this import on (a job BullMQ wrongly thought stalled). */
class ImportTakenOver extends Error {}

/**
 * Runs one import: counts the file's rows once, then reads it as a stream, validates each
 * row with the API's subscriber rules and writes it in batches of IMPORT_BATCH rows. Each
 * batch is one transaction: the subscribers, the row errors, the counters and the checkpoint
 * (rows_processed) commit together, so a runner that dies resumes after the last committed
 * batch, skipping the rows before it, and never writes a row twice. The file is read no
 * faster than batches are written: at most BATCHES_AHEAD + 1 batches are in memory.
 */
@Injectable()
export class ImportRunner {
  private readonly logger = new Logger(ImportRunner.name);
  private rowCheck: Promise<SubscriberRowCheck> | undefined;
  private fast: { job: ImportRun; rows: FastCsvRows } | undefined;

  constructor(
    private readonly imports: ImportsRepository,
    private readonly files: FileStore,
    private readonly pool: PgPool,
    private readonly writer: SubscriberBulkWriter,
  ) {}

  async run(accountId: AccountId, importId: string): Promise<void> {
    const job = await this.imports.start(accountId, importId);
    if (!job) return; // done, failed, or gone
    if (!job.fileId) {
      await this.pool.transaction((client) =>
        this.imports.fail(client, accountId, importId, 'The uploaded file is no longer stored.'),
      );
      return;
    }
    if (job.rowsTotal === null) {
      await this.imports.setTotal(accountId, importId, await this.countRows(accountId, job));
    }
    try {
      await this.importRows(accountId, job);
    } catch (error) {
      if (error instanceof ImportTakenOver) {
        this.logger.warn(`import ${importId}: another worker is running it; leaving it to them`);
        return;
      }
      throw error;
    }
    await this.pool.transaction(async (client) => {
      await this.imports.finish(client, accountId, importId);
      await this.files.delete(accountId, job.fileId!, client);
    });
    this.logger.log(`import ${importId} done`);
  }

  /** The last attempt failed: the import is failed and its file deleted. */
  async giveUp(accountId: AccountId, importId: string, reason: string): Promise<void> {
    const row = await this.imports.findById(accountId, importId);
    await this.pool.transaction(async (client) => {
      await this.imports.fail(client, accountId, importId, reason);
      if (row?.fileId) await this.files.delete(accountId, row.fileId, client);
    });
  }

  /** For an import whose upload was not counted on the way in. */
  private async countRows(accountId: AccountId, job: ImportRun): Promise<number> {
    const counter = new CsvRowCounter();
    for await (const chunk of this.files.read(accountId, job.fileId!))
      counter.push(chunk as Buffer);
    return counter.finish();
  }

  /**
   * Batches are prepared (parsed, checked, staged) while earlier ones are being written, up to
   * BATCHES_AHEAD of them waiting, and committed strictly in order, one at a time. Rows are read
   * and prepared PREPARE_SLICE at a time: a row's cells die young, and only its staged line
   * waits for the batch's write.
   */
  private async importRows(accountId: AccountId, job: ImportRun): Promise<void> {
    /** Writes handed over and not yet seen to finish, oldest first; each starts after the last. */
    const writes: Promise<void>[] = [];
    const slices = csvBatches(
      this.files.read(accountId, job.fileId!),
      job.columns.delimiter,
      PREPARE_SLICE,
    );
    let batch: { first: number; last: number; rows: number; prepared: PreparedBatch } | undefined;
    const write = async () => {
      if (!batch) return;
      const { first, last, prepared } = batch;
      batch = undefined;
      const previous = writes.at(-1) ?? Promise.resolve();
      // A write that fails fails every one queued after it, unstarted.
      const written = previous.then(() =>
        this.writeBatch(accountId, job, { first, last }, prepared),
      );
      // Awaited in turn below (or at the end); until then a failure must not count as unhandled.
      written.catch(() => undefined);
      writes.push(written);
      while (writes.length > BATCHES_AHEAD) await writes.shift();
    };
    for await (const read of slices) {
      const items = read.filter((item) => item.row > job.rowsProcessed); // committed before a crash
      if (items.length === 0) continue;
      batch ??= {
        first: items[0].row,
        last: 0,
        rows: 0,
        prepared: newPreparedBatch(this.fastRowsOf(job).shape),
      };
      batch.last = items[items.length - 1].row;
      batch.rows += items.length;
      await this.prepare(accountId, items, job, batch.prepared);
      if (batch.rows >= IMPORT_BATCH) await write();
      // The write's replies from PostgreSQL are answered between two slices.
      await new Promise(setImmediate);
    }
    await write();
    for (const written of writes) await written;
  }

  /**
   * Adds rows to a batch: as staged lines (valid, first of their email in the batch), as items
   * for the writer (valid, the rest), or as refusals. Runs while the previous batch is written.
   */
  private async prepare(
    accountId: AccountId,
    rows: CsvItem[],
    job: ImportRun,
    prepared: PreparedBatch,
  ): Promise<void> {
    const width = job.columns.columns.length;
    const fast = this.fastRowsOf(job);
    const ids = newIds(rows.length);
    const seen = prepared.emails;
    for (let index = 0; index < rows.length; index++) {
      const item = rows[index];
      if ('problem' in item) {
        prepared.refusals.push({
          row: item.row,
          details: [{ field: 'row', code: 'invalid_csv', message: item.problem }],
        });
        continue;
      }
      if (item.cells.length > width) {
        prepared.refusals.push({
          row: item.row,
          details: [
            {
              field: 'row',
              code: 'invalid_csv',
              message: `This row has ${item.cells.length} cells; the header has ${width}.`,
            },
          ],
        });
        continue;
      }
      const row = fast.accept(item.cells);
      if (row) {
        const identity = this.writer.identifyEmail(accountId, row.email);
        if (!seen.has(identity.email)) {
          seen.add(identity.email);
          prepared.staged.add(
            stageLine(item.row, ids[index], identity.hash, row.email, identity.email, row.fields),
          );
          continue;
        }
      }
      const body = await this.validate(recordToBody(item.cells, job.columns.columns));
      if ('details' in body) {
        prepared.refusals.push({ row: item.row, details: body.details });
        continue;
      }
      const identity = this.writer.identify(accountId, body.instance);
      const fields = seen.has(identity.email)
        ? undefined
        : stageFields(body.instance, prepared.staged.shape);
      seen.add(identity.email);
      if (fields) {
        const email = body.instance.email.trim();
        prepared.staged.add(
          stageLine(item.row, ids[index], identity.hash, email, identity.email, fields),
        );
      } else {
        prepared.later.push({ position: item.row, body: body.instance, identity });
      }
    }
  }

  /** A body checked with the API's rules: the instance, or the details of what is wrong. */
  private async validate(
    body: Record<string, unknown>,
  ): Promise<{ instance: CreateSubscriberDto } | { details: ErrorDetail[] }> {
    // Loaded with the first import: the DTO's validators are a worker's largest modules, and
    // most worker processes only send.
    this.rowCheck ??= import('./subscriber-row-check').then(
      ({ SubscriberRowCheck }) => new SubscriberRowCheck(),
    );
    return (await this.rowCheck).validate(body);
  }

  /** The fast row reader of an import's columns, made once per import. */
  private fastRowsOf(job: ImportRun): FastCsvRows {
    if (this.fast?.job !== job) this.fast = { job, rows: new FastCsvRows(job.columns.columns) };
    return this.fast.rows;
  }

  private async writeBatch(
    accountId: AccountId,
    job: ImportRun,
    { first, last }: { first: number; last: number },
    prepared: PreparedBatch,
  ): Promise<void> {
    const errors: ImportRowError[] = [];
    const counts: BatchCounts = {
      created: 0,
      updated: 0,
      unchanged: 0,
      skippedErased: 0,
      failed: 0,
    };
    const refuse = (row: number, details: ErrorDetail[]) => {
      counts.failed++;
      for (const { field, message } of details.slice(0, ERRORS_PER_ROW)) {
        errors.push({ row, field, message });
      }
    };
    for (const { row, details } of prepared.refusals) refuse(row, details);
    const actor: AuditActor = {
      accountId,
      apiKeyId: job.apiKeyId ?? undefined,
      userId: job.userId ?? undefined,
    };
    await this.pool.transaction(async (client) => {
      const checkpoint = await this.imports.lockCheckpoint(client, accountId, job.id);
      if (checkpoint?.status !== 'running' || checkpoint.rowsProcessed !== first - 1) {
        throw new ImportTakenOver();
      }
      const outcome = await this.writer.writeStaged(client, prepared.staged, prepared.later, {
        mode: job.mode,
        mergeCustomFields: true,
        actor,
        endpoint: 'POST /v1/imports',
        // Not created/updated per row (a file of a million rows would flood the endpoints),
        // but a change to `unsubscribed` is announced whoever makes it.
        announce: 'unsubscribes',
      });
      counts.created += outcome.created;
      counts.updated += outcome.updated;
      counts.unchanged += outcome.unchanged;
      counts.skippedErased += outcome.erased;
      for (const failed of outcome.failed) refuse(failed.position, failed.errors ?? []);
      // Errors in row order, as they were when every row went by in order.
      errors.sort((a, b) => a.row - b.row);
      await this.imports.advance(client, accountId, job.id, last, counts, errors);
    }, this.writer.stagingTable);
  }
}
