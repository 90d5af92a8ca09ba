import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';

// The raw statements over sender_domains. Only SenderDomainsRepository runs them.

/** Locks one domain row of the account for the rest of the transaction (key changes). */
export const lockDomain = (accountId: AccountId, domainId: string) => Prisma.sql`
  SELECT id FROM sender_domains
  WHERE account_id = ${accountId}::uuid AND id = ${domainId}::uuid
  FOR UPDATE`;

/**
 * The daily re-check's claim, across accounts by nature: a timer in each worker process owns
 * no account, it checks every domain that is due. Claims domains last checked before `before`
 * (or never, and created before it) by moving their last_checked_at to now; SKIP LOCKED and
 * the move let any number of workers run it at once without checking a domain twice.
 */
export const claimDueForRecheck = (before: Date, limit: number) => Prisma.sql`
  UPDATE sender_domains SET last_checked_at = now()
  WHERE id IN (
    SELECT id FROM sender_domains
    WHERE COALESCE(last_checked_at, created_at) < ${before}
    ORDER BY COALESCE(last_checked_at, created_at)
    LIMIT ${limit}
    FOR UPDATE SKIP LOCKED)
  RETURNING id::text, account_id::text`;
