import { AccountId, accountIdOfRow } from './account-id';

/**
 * Ids no row has: a worker's warm-up runs each statement of its send path once with them (and
 * every process one Prisma query, to load its query compiler at boot), so the statements are
 * planned before the first real message or request, and every one of them matches nothing.
 */
export const NO_ID = '00000000-0000-0000-0000-000000000000';
/** An account that cannot exist (UUIDv7 ids are never all zeros). */
export const NO_ACCOUNT: AccountId = accountIdOfRow(NO_ID);
