import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';

// The templates module's raw statements. Only TemplatesRepository runs them.

/**
 * Locks one template row until the transaction ends; returns it only if it exists. The lock is
 * the one the change's own UPDATE takes: FOR UPDATE would also refuse the key-share lock of a
 * campaign's foreign key, and hold up every campaign created with the template meanwhile.
 */
export const lockTemplate = (accountId: AccountId, id: string) => Prisma.sql`
  SELECT id FROM templates WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
  FOR NO KEY UPDATE`;
