import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';

type Db = Prisma.TransactionClient;

/** How long an in-progress claim holds its key before another request may take it over. */
export const CLAIM_LEASE_SECONDS = 30;
/** How long a key is remembered (CONTRACT §4). */
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

@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims a key in one statement: inserts it as `processing` with `token` as the claim, or
   * takes over a record that expired or whose claim lapsed (its request died before
   * finishing). Any other existing record wins and is returned for the caller to compare.
   */
  async claim(
    accountId: string,
    key: string,
    fingerprint: string,
    token: string,
  ): Promise<ClaimOutcome> {
    const claimed = await this.prisma.$queryRaw<{ messageId: string }[]>`
      INSERT INTO idempotency_keys AS k
        (account_id, key, fingerprint, message_id, state, locked_until, expires_at)
      VALUES (${accountId}::uuid, ${key}, ${fingerprint}, ${token}::uuid, 'processing',
        now() + make_interval(secs => ${CLAIM_LEASE_SECONDS}),
        now() + make_interval(hours => ${KEY_RETENTION_HOURS}))
      ON CONFLICT (account_id, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, message_id = EXCLUDED.message_id,
            state = 'processing', response_status = NULL, response_body = NULL,
            locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
            created_at = now()
        WHERE k.expires_at <= now() OR (k.state = 'processing' AND k.locked_until <= now())
      RETURNING message_id AS "messageId"`;
    if (claimed[0]?.messageId === token) return { claimed: true };
    return { claimed: false, held: await this.find(accountId, key) };
  }

  /**
   * Stores the response in the transaction that stores the message, only if the claim is
   * still this request's: false when it lapsed and another request took the key over.
   */
  async complete(
    accountId: string,
    key: string,
    token: string,
    response: StoredResponse,
    db: Db,
  ): Promise<boolean> {
    const count = await db.$executeRaw`
      UPDATE idempotency_keys
      SET state = 'completed', response_status = ${response.status},
          response_body = ${JSON.stringify(response.body)}::jsonb
      WHERE account_id = ${accountId}::uuid AND key = ${key}
        AND message_id = ${token}::uuid AND state = 'processing'`;
    return count === 1;
  }

  /** Frees a key whose request failed, so the client may retry with it at once. */
  async release(accountId: string, key: string, token: string): Promise<void> {
    await this.prisma.$executeRaw`
      DELETE FROM idempotency_keys
      WHERE account_id = ${accountId}::uuid AND key = ${key}
        AND message_id = ${token}::uuid AND state = 'processing'`;
  }

  /** Erasure: forgets the keys that created messages to an erased recipient. */
  async forgetMessagesTo(accountId: string, recipientHash: string, db: Db): Promise<void> {
    await db.$executeRaw`
      DELETE FROM idempotency_keys
      WHERE account_id = ${accountId}::uuid AND message_id IN (
        SELECT id FROM transactional_messages
        WHERE account_id = ${accountId}::uuid AND recipient_hash = ${recipientHash})`;
  }

  /** Deletes up to `limit` expired records; returns how many. */
  pruneExpired(limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${limit}))`;
  }

  private async find(accountId: string, key: string): Promise<HeldKey | undefined> {
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
