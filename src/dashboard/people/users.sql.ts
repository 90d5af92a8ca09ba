import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';

// The raw statements over users. Only UsersRepository runs them.

/**
 * Locks the account's owners' rows for the rest of the transaction and returns their ids. Two
 * changes that could each take away an owner (demoting or removing two owners at once) queue
 * here, and the second sees the first's result: an account keeps at least one owner. The lock
 * leaves the rows' keys alone: FOR UPDATE would also refuse the key-share lock of a session's
 * or a password reset's foreign key, and hold up every owner's sign-in meanwhile.
 */
export const lockOwners = (accountId: AccountId) => Prisma.sql`
  SELECT id FROM users WHERE account_id = ${accountId}::uuid AND role = 'owner'
  FOR NO KEY UPDATE`;
