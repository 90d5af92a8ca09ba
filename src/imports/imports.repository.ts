import { Injectable } from '@nestjs/common';
import { ImportMode, Prisma, SubscriberImport } from '../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import {
  ACCOUNT_QUOTAS,
  createBulkJob,
  unfinishedBulkJobs,
} from '../platform/database/account-quota';
import type { PgClient } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import type { ImportPlan } from './import-plan';
import * as sql from './imports.sql';

/** What a runner needs of an import it starts or resumes. */
export interface ImportRun {
  id: string;
  mode: ImportMode;
  columns: ImportPlan;
  fileId: string | null;
  rowsTotal: number | null;
  rowsProcessed: number;
  apiKeyId: string | null;
  userId: string | null;
}

export interface ImportRowError {
  row: number;
  field: string;
  message: string;
}

export interface BatchCounts {
  created: number;
  updated: number;
  unchanged: number;
  skippedErased: number;
  failed: number;
}

/** subscriber_imports and subscriber_import_errors, and their only writer. */
@Injectable()
export class ImportsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  /** The new import, or undefined when the account has its quota of unfinished bulk jobs. */
  create(
    accountId: AccountId,
    data: {
      id: string;
      apiKeyId?: string;
      userId?: string;
      mode: ImportMode;
      columns: ImportPlan;
      fileId: string;
      fileBytes: number;
      /** Counted on the way in; made exact by the runner at the end (CsvRowCounter). */
      rowsTotal: number;
    },
  ): Promise<SubscriberImport | undefined> {
    return createBulkJob(this.prisma, accountId, (tx) =>
      tx.subscriberImport.create({
        data: {
          ...data,
          accountId,
          columns: data.columns as unknown as Prisma.InputJsonObject,
          fileBytes: BigInt(data.fileBytes),
        },
      }),
    );
  }

  /** Whether the account has room for another import or export now (create checks again). */
  async hasBulkJobRoom(accountId: AccountId): Promise<boolean> {
    return (await unfinishedBulkJobs(this.prisma, accountId)) < ACCOUNT_QUOTAS.bulk_jobs;
  }

  findById(accountId: AccountId, id: string): Promise<SubscriberImport | null> {
    return this.prisma.subscriberImport.findFirst({ where: { accountId, id } });
  }

  async start(accountId: AccountId, id: string): Promise<ImportRun | undefined> {
    const { rows } = await this.pool.query<ImportRun>(sql.START, [accountId, id]);
    return rows[0];
  }

  async setTotal(accountId: AccountId, id: string, rows: number): Promise<void> {
    await this.pool.query(sql.SET_TOTAL, [accountId, id, rows]);
  }

  /** The checkpoint, with the import row locked for the rest of the transaction. */
  async lockCheckpoint(
    client: PgClient,
    accountId: AccountId,
    id: string,
  ): Promise<{ rowsProcessed: number; status: string } | undefined> {
    const { rows } = await client.query<{ rowsProcessed: number; status: string }>(
      sql.LOCK_CHECKPOINT,
      [accountId, id],
    );
    return rows[0];
  }

  async advance(
    client: PgClient,
    accountId: AccountId,
    id: string,
    rowsProcessed: number,
    counts: BatchCounts,
    errors: ImportRowError[],
  ): Promise<void> {
    await client.query(sql.ADVANCE, [
      accountId,
      id,
      rowsProcessed,
      counts.created,
      counts.updated,
      counts.unchanged,
      counts.skippedErased,
      counts.failed,
    ]);
    if (errors.length > 0) await client.query(sql.INSERT_ERRORS, [id, JSON.stringify(errors)]);
  }

  async finish(client: PgClient, accountId: AccountId, id: string): Promise<void> {
    await client.query(sql.FINISH, [accountId, id]);
  }

  async fail(client: PgClient, accountId: AccountId, id: string, reason: string): Promise<void> {
    await client.query(sql.FAIL, [accountId, id, reason.slice(0, 500)]);
  }

  /**
   * Row errors in row order after (row, field), at most `limit`. The import must be the
   * account's: callers find it with findById first.
   */
  async errorsAfter(
    id: string,
    after: { row: number; field: string },
    limit: number,
  ): Promise<ImportRowError[]> {
    const { rows } = await this.pool.query<ImportRowError>(sql.ERRORS_PAGE, [
      id,
      after.row,
      after.field,
      limit,
    ]);
    return rows;
  }

  /** Queued or running imports idle for `idleSeconds`, across accounts (the watchdog). */
  async stalledAcrossAccounts(
    idleSeconds: number,
    limit: number,
  ): Promise<{ id: string; accountId: AccountId }[]> {
    const { rows } = await this.pool.query<{ id: string; accountId: string }>(sql.STALLED, [
      idleSeconds,
      limit,
    ]);
    return rows.map((row) => ({ id: row.id, accountId: accountIdOfRow(row.accountId) }));
  }
}
