import { Injectable } from '@nestjs/common';
import { Prisma, Suppression } from '../generated/prisma/client';
import { newId, newIds } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import {
  type ComposedStatement,
  relation,
  type Relation,
} from '../platform/database/composed-statement';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../platform/pagination/page-request';
import { SuppressionReason } from './suppression-reason';
import * as sql from './suppressions.sql';

type Db = Prisma.TransactionClient;

/**
 * The only writer of `suppressions`. Addresses are stored normalised (lower-cased, trimmed).
 * The raw statements are in suppressions.sql.ts.
 */
@Injectable()
export class SuppressionsRepository implements KeysetListing<Suppression> {
  readonly listName = 'suppressions';

  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  listPage(accountId: AccountId, page: PageRequest): Promise<Suppression[]> {
    return this.prisma.suppression.findMany(keysetPage(accountId, page));
  }

  find(
    accountId: AccountId,
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
    accountId: AccountId,
    emailNormalized: string,
    reason: SuppressionReason,
    db: Db = this.prisma,
  ): Promise<{ entry: Suppression; created: boolean }> {
    const id = newId();
    const [inserted] = await db.$queryRaw<{ id: string }[]>(
      sql.add(accountId, id, emailNormalized, reason),
    );
    const entry = await this.find(accountId, emailNormalized, db);
    if (!entry) throw new Error('suppression vanished right after its insert');
    return { entry, created: inserted !== undefined };
  }

  /** Adds to `statement` the address's entry, if it is listed (see listedPart). */
  addListed(
    statement: ComposedStatement,
    accountId: AccountId,
    emailNormalized: string,
  ): Relation<'reason'> {
    statement.with(
      sql.listedPart({
        account: statement.param(accountId),
        email: statement.param(emailNormalized),
      }),
    );
    return relation('listed_found');
  }

  /**
   * Adds to `statement` the listing of every address of the relation `source`
   * (email_normalized, suppress) marked `suppress`; at most `most` of them.
   */
  addFrom(
    statement: ComposedStatement,
    accountId: AccountId,
    source: Relation<'email_normalized' | 'suppress'>,
    most: number,
    reason: SuppressionReason,
  ): void {
    statement.with(
      sql.addFromPart({
        source: source.name,
        ids: statement.param(newIds(most)),
        account: statement.param(accountId),
        reason: statement.param(reason),
      }),
    );
  }

  /**
   * Which of these addresses are listed: the send pipeline's check of each chunk, so straight
   * through pg (Prisma's runtime cost more than the query, and planned each new list length
   * afresh: the first chunk of a campaign waited for it).
   */
  /** Why the address is listed, or undefined: on the pool, for the send path. */
  async listedReason(accountId: AccountId, emailNormalized: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ reason: string }>(sql.LISTED_REASON, [
      accountId,
      emailNormalized,
    ]);
    return rows[0]?.reason;
  }

  async listedAmong(accountId: AccountId, emailsNormalized: string[]): Promise<Set<string>> {
    if (emailsNormalized.length === 0) return new Set();
    const { rows } = await this.pool.query<{ email_normalized: string }>(sql.LISTED_AMONG, [
      accountId,
      emailsNormalized,
    ]);
    return new Set(rows.map((row) => row.email_normalized));
  }

  /** Deletes the entry and returns it; null when the address was not listed. */
  async remove(accountId: AccountId, emailNormalized: string, db: Db): Promise<Suppression | null> {
    const rows = await db.$queryRaw<{ reason: string; created_at: Date; id: string }[]>(
      sql.remove(accountId, emailNormalized),
    );
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
