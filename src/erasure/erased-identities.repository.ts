import { Injectable } from '@nestjs/common';
import { ErasedIdentity } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { ComposedStatement, relation, Relation } from '../platform/database/composed-statement';
import type { Db, PgClient } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import * as sql from './erasure.sql';

/**
 * erased_identities, the tombstones, and its only writer: a keyed hash of the normalised
 * email and the random id the subscriber had, never the address. Also takes the per-identity
 * advisory locks that writes and erasures of an email share. The raw SQL is in erasure.sql.ts.
 */
@Injectable()
export class ErasedIdentitiesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Locks each identity for the rest of `tx`, in sorted order so two writers cannot deadlock. */
  async lock(accountId: AccountId, emailHashes: string[], tx: Db): Promise<void> {
    for (const hash of [...emailHashes].sort()) {
      await tx.$executeRaw(sql.lockIdentity(accountId, hash));
    }
  }

  /**
   * Locks many identities for the rest of the pg transaction of `client`, in one statement,
   * and answers which of them are erased (a batch of bulk writes).
   */
  async lockMany(
    client: PgClient,
    accountId: AccountId,
    emailHashes: string[],
  ): Promise<Set<string>> {
    if (emailHashes.length === 0) return new Set();
    await client.query(sql.LOCK_IDENTITIES, [accountId, emailHashes]);
    const { rows } = await client.query<{ email_hash: string }>(sql.ERASED_AMONG, [
      accountId,
      emailHashes,
    ]);
    return new Set(rows.map((row) => row.email_hash));
  }

  /**
   * Adds to `statement` the erased ones among these identities, locked by an earlier
   * statement of the transaction (see erasedAmongPart).
   */
  addErasedAmong(
    statement: ComposedStatement,
    accountId: AccountId,
    emailHashes: string[],
  ): Relation<'email_hash'> {
    statement.with(
      sql.erasedAmongPart({
        account: statement.param(accountId),
        hashes: statement.param(emailHashes),
      }),
    );
    return relation('erased_found');
  }

  /**
   * lockMany for the hashes a fixed query of the caller's gives (rows it staged in this
   * transaction); which of them are erased is the caller's statement to read.
   */
  async lockFrom(client: PgClient, accountId: AccountId, hashesQuery: string): Promise<void> {
    await client.query(sql.lockIdentitiesOf(hashesQuery), [accountId]);
  }

  /** Whether the account erased anyone at or after `since`. */
  async anyErasedSince(client: PgClient, accountId: AccountId, since: Date): Promise<boolean> {
    const { rows } = await client.query<{ erased: boolean }>(sql.ERASED_SINCE, [accountId, since]);
    return rows[0]?.erased === true;
  }

  /** The hash of one of these identities that is erased, if any. */
  async findErased(
    accountId: AccountId,
    emailHashes: string[],
    tx: Db,
  ): Promise<string | undefined> {
    const found = await tx.erasedIdentity.findFirst({
      where: { accountId, emailHash: { in: emailHashes } },
      select: { emailHash: true },
    });
    return found?.emailHash;
  }

  find(accountId: AccountId, emailHash: string, tx: Db): Promise<ErasedIdentity | null> {
    return tx.erasedIdentity.findUnique({
      where: { accountId_emailHash: { accountId, emailHash } },
    });
  }

  create(
    accountId: AccountId,
    tombstone: { emailHash: string; subscriberId: string | undefined },
    tx: Db,
  ): Promise<ErasedIdentity> {
    return tx.erasedIdentity.create({ data: { accountId, ...tombstone } });
  }

  /** The tombstone hash of an erased subscriber, found by the id it had. */
  async hashOfSubscriber(accountId: AccountId, subscriberId: string): Promise<string | undefined> {
    const found = await this.prisma.erasedIdentity.findFirst({
      where: { accountId, subscriberId },
      select: { emailHash: true },
    });
    return found?.emailHash;
  }

  /** Ids subscribers erased since `since` had, within a keyset range of ids. */
  async subscriberIdsErasedSince(
    accountId: AccountId,
    since: Date,
    range: { afterId: string; throughId: string | null },
    tx: Db,
  ): Promise<string[]> {
    const rows = await tx.$queryRaw<{ id: string }[]>(
      sql.subscriberIdsErasedSince(accountId, since, range.afterId, range.throughId),
    );
    return rows.map((row) => row.id);
  }
}
