import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';

// The engine's reads of other domains' tables, by subscriber id (reads only: each table keeps
// its one writer).

/**
 * Whether each subscriber is mailable, and why not: their status and whether their address
 * is on the suppression list. A subscriber missing from the answer was erased.
 */
export const subscriberFacts = (ids: string[]) => Prisma.sql`
  SELECT s.id::text, s.status,
         EXISTS (SELECT 1 FROM suppressions x
                  WHERE x.account_id = s.account_id
                    AND x.email_normalized = s.email_normalized) AS suppressed
    FROM subscribers s
   WHERE s.id = ANY(${ids}::uuid[])`;

/** Whether the subscriber matches a filter (segment rules compiled over `subscribers s`). */
export const subscriberMatches = (
  accountId: AccountId,
  subscriberId: string,
  filter: Prisma.Sql,
) => Prisma.sql`
  SELECT EXISTS (SELECT 1 FROM subscribers s
                  WHERE s.account_id = ${accountId}::uuid AND s.id = ${subscriberId}::uuid
                    AND ${filter}) AS matches`;
