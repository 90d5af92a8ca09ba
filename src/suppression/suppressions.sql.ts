import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { SuppressionReason } from './suppression-reason';

// Every raw statement over the suppressions table; SuppressionsRepository runs them.

/** Lists the address unless it already is; returns the id only when this inserted it. */
export const add = (
  accountId: AccountId,
  id: string,
  emailNormalized: string,
  reason: SuppressionReason,
) => Prisma.sql`
  INSERT INTO suppressions (id, account_id, email_normalized, reason)
  VALUES (${id}::uuid, ${accountId}::uuid, ${emailNormalized}, ${reason})
  ON CONFLICT (account_id, email_normalized) DO NOTHING
  RETURNING id::text`;

/**
 * Many addresses at once, on a pg client (the send pipeline). $1 account, $2 ids,
 * $3 normalised addresses, $4 reason.
 */
export const ADD_MANY = `
  INSERT INTO suppressions (id, account_id, email_normalized, reason)
  SELECT v.id, $1::uuid, v.email, $4
    FROM unnest($2::uuid[], $3::text[]) AS v(id, email)
  ON CONFLICT (account_id, email_normalized) DO NOTHING`;

/** Deletes the entry, returning what it was. */
export const remove = (accountId: AccountId, emailNormalized: string) => Prisma.sql`
  DELETE FROM suppressions
   WHERE account_id = ${accountId}::uuid AND email_normalized = ${emailNormalized}
  RETURNING id::text, reason, created_at`;
