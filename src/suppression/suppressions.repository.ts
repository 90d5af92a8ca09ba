import { Injectable } from '@nestjs/common';
import { Prisma, Suppression } from '../generated/prisma/client';
import { newId } from '../platform/crypto/ids';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';
import { SuppressionReason } from './suppression-reason';

type Db = Prisma.TransactionClient;

/** A pg client inside a caller's transaction (the send pipeline writes through PgPool). */
export interface SqlClient {
  query(text: string, params: unknown[]): Promise<unknown>;
}

const ADD_MANY = `
  INSERT INTO suppressions (id, account_id, email_normalized, reason)
  SELECT v.id, $1::uuid, v.email, $4
    FROM unnest($2::uuid[], $3::text[]) AS v(id, email)
  ON CONFLICT (account_id, email_normalized) DO NOTHING`;

/** The only writer of `suppressions`. Addresses are stored normalised (lower-cased, trimmed). */
@Injectable()
export class SuppressionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: string, page: PageRequest): Promise<Suppression[]> {
    return this.prisma.suppression.findMany(keysetPage(accountId, page));
  }

  find(
    accountId: string,
    emailNormalized: string,
    db: Db = this.prisma,
  ): Promise<Suppression | null> {
    return db.suppression.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
    });
  }

  /**
   * Adds the address unless it is already listed; an existing entry keeps its first reason
   * and date. Returns the entry and whether this call created it.
   */
  async add(
    accountId: string,
    emailNormalized: string,
    reason: SuppressionReason,
    db: Db = this.prisma,
  ): Promise<{ entry: Suppression; created: boolean }> {
    const id = newId();
    const [inserted] = await db.$queryRaw<{ id: string }[]>`
      INSERT INTO suppressions (id, account_id, email_normalized, reason)
      VALUES (${id}::uuid, ${accountId}::uuid, ${emailNormalized}, ${reason})
      ON CONFLICT (account_id, email_normalized) DO NOTHING
      RETURNING id::text`;
    const entry = await this.find(accountId, emailNormalized, db);
    if (!entry) throw new Error('suppression vanished right after its insert');
    return { entry, created: inserted !== undefined };
  }

  /** Adds many addresses in one statement, on a pg client inside the caller's transaction. */
  async addMany(
    client: SqlClient,
    accountId: string,
    emailsNormalized: string[],
    reason: SuppressionReason,
  ): Promise<void> {
    if (emailsNormalized.length === 0) return;
    const ids = emailsNormalized.map(() => newId());
    await client.query(ADD_MANY, [accountId, ids, emailsNormalized, reason]);
  }

  /** Deletes the entry and returns it; null when the address was not listed. */
  async remove(accountId: string, emailNormalized: string, db: Db): Promise<Suppression | null> {
    const rows = await db.$queryRaw<{ reason: string; created_at: Date; id: string }[]>`
      DELETE FROM suppressions
       WHERE account_id = ${accountId}::uuid AND email_normalized = ${emailNormalized}
      RETURNING id::text, reason, created_at`;
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      accountId,
      emailNormalized,
      reason: row.reason,
      createdAt: row.created_at,
    };
  }
}
