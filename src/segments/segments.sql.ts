import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';

// The segments module's raw statements. Only SegmentsRepository runs them.

/** Subscribers of the account matching a compiled filter: the audience the fan-out reads. */
export const countMatching = (accountId: AccountId, condition: Prisma.Sql) => Prisma.sql`
  SELECT count(*) AS count FROM subscribers s
  WHERE s.account_id = ${accountId}::uuid AND ${condition}`;

/** Segments whose filter may name an email: only those have an email condition in their text. */
export const filtersWithEmailConditions = (accountId: AccountId) => Prisma.sql`
  SELECT id, filter FROM segments
  WHERE account_id = ${accountId}::uuid AND strpos(filter::text, '"email"') > 0`;

/**
 * Erasure: a filter with the erased email replaced. Raw, so updated_at stays: the segment's
 * owner did not edit it.
 */
export const replaceFilter = (accountId: AccountId, id: string, filter: string) => Prisma.sql`
  UPDATE segments SET filter = ${filter}::jsonb
  WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;
