import { Injectable } from '@nestjs/common';
import { SubscriberExport } from '../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import { createBulkJob } from '../platform/database/account-quota';
import type { Db, PgClient } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import * as sql from './exports.sql';

/** subscriber_exports and its only writer. */
@Injectable()
export class ExportsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  /** The new export, or undefined when the account has its quota of unfinished bulk jobs. */
  create(
    accountId: AccountId,
    data: { id: string; apiKeyId?: string; userId?: string; segmentId: string | null },
  ): Promise<SubscriberExport | undefined> {
    return createBulkJob(this.prisma, accountId, (tx) =>
      tx.subscriberExport.create({ data: { ...data, accountId } }),
    );
  }

  findById(accountId: AccountId, id: string): Promise<SubscriberExport | null> {
    return this.prisma.subscriberExport.findFirst({ where: { accountId, id } });
  }

  async start(
    accountId: AccountId,
    id: string,
  ): Promise<{ id: string; segmentId: string | null; fileId: string | null } | undefined> {
    const { rows } = await this.pool.query<{
      id: string;
      segmentId: string | null;
      fileId: string | null;
    }>(sql.START, [accountId, id]);
    return rows[0];
  }

  async progress(accountId: AccountId, id: string, rows: number): Promise<void> {
    await this.pool.query(sql.PROGRESS, [accountId, id, rows]);
  }

  async finish(
    client: PgClient,
    accountId: AccountId,
    id: string,
    result: { fileId: string; rows: number; expiresAt: Date },
  ): Promise<boolean> {
    const { rowCount } = await client.query(sql.FINISH, [
      accountId,
      id,
      result.fileId,
      result.rows,
      result.expiresAt,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async fail(accountId: AccountId, id: string, reason: string): Promise<void> {
    await this.pool.query(sql.FAIL, [accountId, id, reason.slice(0, 500)]);
  }

  /** Expires exports past their time (across accounts); returns the files to delete. */
  async expireDueAcrossAccounts(
    client: PgClient,
    limit: number,
  ): Promise<{ accountId: AccountId; fileId: string | null }[]> {
    const { rows } = await client.query<{ accountId: string; fileId: string | null }>(
      sql.EXPIRE_DUE,
      [limit],
    );
    return rows.map((row) => ({ accountId: accountIdOfRow(row.accountId), fileId: row.fileId }));
  }

  /** Expires every finished export of the account; returns their files. */
  async expireAccount(client: PgClient, accountId: AccountId): Promise<string[]> {
    const { rows } = await client.query<{ fileId: string | null }>(sql.EXPIRE_ACCOUNT, [accountId]);
    return rows.flatMap((row) => (row.fileId ? [row.fileId] : []));
  }

  /** expireAccount inside a Prisma transaction (the erasure participant's). */
  async expireAccountInTransaction(tx: Db, accountId: AccountId): Promise<string[]> {
    const rows = await tx.$queryRawUnsafe<{ fileId: string | null }[]>(
      sql.EXPIRE_ACCOUNT,
      accountId,
    );
    return rows.flatMap((row) => (row.fileId ? [row.fileId] : []));
  }

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
