import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';

// The erasure module's raw statements. Only ErasedIdentitiesRepository runs them.

/**
 * Serialises writes and erasures of one identity: a transaction-scoped advisory lock on the
 * account and the email's tombstone hash, released at commit or rollback.
 */
export const lockIdentity = (accountId: AccountId, emailHash: string) =>
  Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${accountId}:${emailHash}`}, 0))`;

/**
 * Subscriber ids of tombstones erased since `since` whose ids fall in the keyset range
 * (afterId, throughId]; no upper bound when throughId is null.
 */
export const subscriberIdsErasedSince = (
  accountId: AccountId,
  since: Date,
  afterId: string,
  throughId: string | null,
) => Prisma.sql`
  SELECT e.subscriber_id::text AS id FROM erased_identities e
   WHERE e.account_id = ${accountId}::uuid
     AND e.subscriber_id > ${afterId}::uuid
     AND (${throughId}::uuid IS NULL OR e.subscriber_id <= ${throughId}::uuid)
     AND e.erased_at >= ${since}`;

/**
 * lockIdentity for each hash that `hashes` (a query of one text column) gives, in one
 * statement. Locks are taken in a fixed order ("C" collation: the order of JavaScript's sort,
 * which `lock` uses), so two writers over overlapping identities cannot deadlock.
 */
const lockEach = (account: string, hashes: string) =>
  `SELECT count(pg_advisory_xact_lock(hashtextextended(${account} || ':' || h, 0)))
  FROM (SELECT DISTINCT hash COLLATE "C" AS h FROM (${hashes}) AS source(hash) ORDER BY 1) ordered`;

/** The identities' locks for a batch of bulk writes, one round trip. $1 account, $2 hashes. */
export const LOCK_IDENTITIES = lockEach('$1::text', 'SELECT unnest($2::text[])');

/**
 * LOCK_IDENTITIES for the hashes a query of the caller's gives, where the batch already is in
 * the database (a staged import batch): the same locks, in the same order, without sending the
 * hashes twice. `hashes` is a fixed statement of one text column, never input. $1 account.
 */
export const lockIdentitiesOf = (hashes: string) => lockEach('$1::text', hashes);

/**
 * LOCK_IDENTITIES as a fixed statement, without parameters, to send with BEGIN in one round
 * trip (PgPool.transaction's `opening`). The values are written into its text, so only those
 * that cannot carry SQL are taken: an account id is a UUID and a hash is base64url.
 */
export function lockIdentitiesStatement(accountId: AccountId, hashes: string[]): string {
  if (!/^[0-9a-f-]{36}$/i.test(accountId) || hashes.some((h) => !/^[A-Za-z0-9_-]+$/.test(h))) {
    throw new Error('an identity lock takes a UUID account and base64url hashes');
  }
  const literals = hashes.map((hash) => `'${hash}'`).join(', ');
  return lockEach(`'${accountId}'`, `SELECT unnest(ARRAY[${literals}]::text[])`);
}

/**
 * A part of a composed write: the erased ones among these identities (`erased_found`), read by
 * a statement after the one that locked them, so its snapshot sees an erasure that committed
 * while the lock was awaited.
 */
export const erasedAmongPart = (p: { account: string; hashes: string }) => `
  erased_found AS (
    SELECT email_hash FROM erased_identities
     WHERE account_id = ${p.account}::uuid AND email_hash = ANY(${p.hashes}::text[]))`;

/** Which of these identities are erased. $1 account, $2 hashes. */
export const ERASED_AMONG = `SELECT email_hash FROM erased_identities
  WHERE account_id = $1 AND email_hash = ANY($2::text[])`;

/** Whether any identity of the account was erased at or after a moment. $1 account, $2 since. */
export const ERASED_SINCE = `SELECT EXISTS (SELECT 1 FROM erased_identities
  WHERE account_id = $1 AND erased_at >= $2) AS erased`;
