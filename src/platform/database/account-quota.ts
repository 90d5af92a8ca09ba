import { Prisma } from '../../generated/prisma/client';
import { ValidationFailedError } from '../errors/api-errors';
import type { AccountId } from './account-id';
import type { Db } from './db';
import type { PrismaService } from './prisma.service';

/**
 * How much of each kind one account may hold: webhook endpoints (each delivery fans out to
 * all of them, so many would make Herald an amplifier), sender domains (each holds an RSA key
 * and is checked in DNS every day), and imports and exports together that are queued or
 * running (each holds a worker for minutes).
 */
export const ACCOUNT_QUOTAS = {
  webhook_endpoints: 20,
  sender_domains: 50,
  bulk_jobs: 3,
} as const;

export type Quota = keyof typeof ACCOUNT_QUOTAS;

/**
 * Makes concurrent creates of one account's `quota` take turns until the caller's transaction
 * ends, so a count taken after it stays true until the insert commits: two creates at the
 * limit cannot both see room. A transaction-scoped advisory lock, not a row lock on the
 * account, so nothing else that touches the account waits.
 */
export async function lockQuota(db: Db, accountId: AccountId, quota: Quota): Promise<void> {
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`quota:${quota}:${accountId}`}, 0))`;
}

/** Imports and exports of the account that are queued or running: what bulk_jobs counts. */
export async function unfinishedBulkJobs(db: Db, accountId: AccountId): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>(Prisma.sql`
    SELECT (SELECT count(*) FROM subscriber_imports
              WHERE account_id = ${accountId}::uuid AND status IN ('queued', 'running'))
         + (SELECT count(*) FROM subscriber_exports
              WHERE account_id = ${accountId}::uuid AND status IN ('queued', 'running'))
           AS n`);
  return Number(row.n);
}

/**
 * Runs `create` (the insert of an import or an export) in one transaction with the quota's
 * check, so that two creates at the limit cannot both see room: undefined, and nothing
 * written, while the account has its quota of unfinished bulk jobs.
 */
export function createBulkJob<T>(
  prisma: PrismaService,
  accountId: AccountId,
  create: (tx: Db) => Promise<T>,
): Promise<T | undefined> {
  return prisma.$transaction(async (tx) => {
    await lockQuota(tx, accountId, 'bulk_jobs');
    if ((await unfinishedBulkJobs(tx, accountId)) >= ACCOUNT_QUOTAS.bulk_jobs) return undefined;
    return create(tx);
  });
}

/** The 422 of a create past its quota, on the field that names what was created. */
export class QuotaExceededError extends ValidationFailedError {
  constructor(field: string, message: string) {
    super([{ field, code: 'quota_exceeded', message }]);
  }
}

/** The 422 of an import or export while the account has its quota of them unfinished. */
export function bulkJobsExceeded(field: 'imports' | 'exports'): QuotaExceededError {
  return new QuotaExceededError(
    field,
    `An account runs at most ${ACCOUNT_QUOTAS.bulk_jobs} imports and exports at once; wait for one to finish.`,
  );
}
