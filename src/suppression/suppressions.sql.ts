import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { SuppressionReason } from './suppression-reason';

// Every raw statement over the suppressions table; SuppressionsRepository runs them.

/** Which of the addresses ($2, normalised) the account ($1) lists: the send path's check. */
export const LISTED_AMONG = `
  SELECT email_normalized FROM suppressions
   WHERE account_id = $1::uuid AND email_normalized = ANY($2::text[])`;

/** Why the account ($1) lists the address ($2, normalised); no row when it does not. */
export const LISTED_REASON = `
  SELECT reason FROM suppressions WHERE account_id = $1::uuid AND email_normalized = $2`;

/** A part of a composed write: the address's entry, if listed (`listed_found`: its reason). */
export const listedPart = (p: { account: string; email: string }) => `
  listed_found AS (
    SELECT reason FROM suppressions
     WHERE account_id = ${p.account}::uuid AND email_normalized = ${p.email})`;

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
 * A part of a composed write (the send pipeline's outcomes): lists every address of the
 * relation `source` (email_normalized, suppress) marked `suppress`, unless already listed.
 * Ids come from the array `ids`, one per row at most.
 */
export const addFromPart = (p: {
  source: string;
  ids: string;
  account: string;
  reason: string;
}) => `
  suppressed AS (
    INSERT INTO suppressions (id, account_id, email_normalized, reason)
    SELECT (${p.ids}::uuid[])[n], ${p.account}::uuid, email_normalized, ${p.reason}
      FROM (SELECT email_normalized, row_number() OVER () AS n
              FROM ${p.source} WHERE suppress) listed
    ON CONFLICT (account_id, email_normalized) DO NOTHING)`;

/** Deletes the entry, returning what it was. */
export const remove = (accountId: AccountId, emailNormalized: string) => Prisma.sql`
  DELETE FROM suppressions
   WHERE account_id = ${accountId}::uuid AND email_normalized = ${emailNormalized}
  RETURNING id::text, reason, created_at`;
