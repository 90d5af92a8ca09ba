import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import {
  type ComposedStatement,
  relation,
  type Relation,
} from '../platform/database/composed-statement';
import type { Db } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import { IDEMPOTENCY_CLAIM_LEASE_SECONDS } from './transactional.settings';
import * as sql from './transactional.sql';

/** How long a key is remembered: clients are promised a day to retry with the same key. */
export const KEY_RETENTION_HOURS = 24;

export interface StoredResponse {
  status: number;
  body: Prisma.JsonValue;
}

/** The record of a key some other request holds. */
export interface HeldKey {
  fingerprint: string;
  /** Present once that request completed. */
  response: StoredResponse | undefined;
}

export type ClaimOutcome = { claimed: true } | { claimed: false; held: HeldKey | undefined };

/** idempotency_keys and its only writer. The SQL is in transactional.sql.ts. */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims a key in one statement: inserts it as `processing` with `token` as the claim, or
   * takes over a record that expired or whose claim lapsed (its request died before
   * finishing). Any other existing record wins and is returned for the caller to compare.
   */
  async claim(
    accountId: AccountId,
    key: string,
    fingerprint: string,
    token: string,
  ): Promise<ClaimOutcome> {
    const claimed = await this.prisma.$queryRaw<{ messageId: string }[]>(
      sql.claimKey(
        accountId,
        key,
        fingerprint,
        token,
        IDEMPOTENCY_CLAIM_LEASE_SECONDS,
        KEY_RETENTION_HOURS,
      ),
    );
    if (claimed[0]?.messageId === token) return { claimed: true };
    return { claimed: false, held: await this.find(accountId, key) };
  }

  /**
   * Stores the response in the transaction that stores the message, only if the claim is
   * still this request's: false when it lapsed and another request took the key over.
   */
  async complete(
    accountId: AccountId,
    key: string,
    token: string,
    response: StoredResponse,
    db: Db,
  ): Promise<boolean> {
    const count = await db.$executeRaw(
      sql.completeKey(accountId, key, token, response.status, JSON.stringify(response.body)),
    );
    return count === 1;
  }
  /** complete() as a part of a composed write, done only when `after` holds a row. */
  addCompletion(
    statement: ComposedStatement,
    accountId: AccountId,
    key: string,
    token: string,
    response: StoredResponse,
    after: Relation<never>,
  ): Relation<'key'> {
    const p = (value: unknown) => statement.param(value);
    statement.with(
      sql.completeKeyPart({
        account: p(accountId),
        key: p(key),
        token: p(token),
        status: p(response.status),
        body: p(JSON.stringify(response.body)),
        after: after.name,
      }),
    );
    return relation('key_completed');
  }

  /** Frees a key whose request failed, so the client may retry with it at once. */
  async release(accountId: AccountId, key: string, token: string): Promise<void> {
    await this.prisma.$executeRaw(sql.releaseKey(accountId, key, token));
  }

  /** Erasure: forgets the keys that created messages to an erased recipient. */
  async forgetMessagesTo(accountId: AccountId, recipientHash: string, db: Db): Promise<void> {
    await db.$executeRaw(sql.forgetKeysOfRecipient(accountId, recipientHash));
  }

  /** Deletes up to `limit` expired records across accounts (the sweep); returns how many. */
  pruneExpiredAcrossAccounts(limit: number): Promise<number> {
    return this.prisma.$executeRaw(sql.pruneExpiredKeys(limit));
  }

  private async find(accountId: AccountId, key: string): Promise<HeldKey | undefined> {
    const row = await this.prisma.idempotencyKey.findUnique({
      where: { accountId_key: { accountId, key } },
      select: { fingerprint: true, state: true, responseStatus: true, responseBody: true },
    });
    if (!row) return undefined;
    const done = row.state === 'completed' && row.responseStatus !== null;
    return {
      fingerprint: row.fingerprint,
      response: done ? { status: row.responseStatus!, body: row.responseBody } : undefined,
    };
  }
}
