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
