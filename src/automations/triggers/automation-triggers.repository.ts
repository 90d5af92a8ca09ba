import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import * as sql from './automation-triggers.sql';

/**
 * The trigger sweeps' reads of subscribers, and automation_segment_members, which only they
 * write. The SQL is in automation-triggers.sql.ts.
 */
@Injectable()
export class AutomationTriggersRepository {
  async createdSince(
    accountId: AccountId,
    automationId: string,
    since: Date,
    limit: number,
    db: Db,
  ): Promise<string[]> {
    const rows = await db.$queryRaw<{ id: string }[]>(
      sql.createdSince(accountId, automationId, uuidFloor(since), since, limit),
    );
    return rows.map((row) => row.id);
  }

  async baseline(accountId: AccountId, automationId: string, audience: Prisma.Sql, tx: Db) {
    await tx.$executeRaw(sql.baselineMembers(accountId, automationId, audience));
  }

  async segmentEntries(
    accountId: AccountId,
    automationId: string,
    audience: Prisma.Sql,
    tx: Db,
  ): Promise<string[]> {
    const rows = await tx.$queryRaw<{ subscriber_id: string }[]>(
      sql.segmentEntries(accountId, automationId, audience),
    );
    return rows.map((row) => row.subscriber_id);
  }

  /** Erasure: the person is nobody's segment member any more. */
  async forgetMember(subscriberId: string, tx: Db): Promise<void> {
    await tx.$executeRaw(sql.forgetMember(subscriberId));
  }

  datesDue(
    accountId: AccountId,
    sweep: sql.DateSweep,
    db: Db,
  ): Promise<{ subscriber_id: string; year: number }[]> {
    return db.$queryRaw(sql.datesDue(accountId, sweep));
  }
}

/** The smallest UUIDv7 of this moment: ids at or after it were made at or after it. */
export function uuidFloor(at: Date): string {
  const hex = Math.max(0, at.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
