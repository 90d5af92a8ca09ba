import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';

/** automation_events, and its only writer: the events POST /v1/events received. */
@Injectable()
export class AutomationEventsRepository {
  async create(
    accountId: AccountId,
    event: {
      id: string;
      name: string;
      subscriberId: string;
      properties: Prisma.InputJsonObject | undefined;
      occurredAt: Date;
    },
    tx: Db,
  ): Promise<void> {
    await tx.automationEvent.create({
      data: {
        id: event.id,
        accountId,
        name: event.name,
        subscriberId: event.subscriberId,
        properties: event.properties ?? Prisma.DbNull,
        occurredAt: event.occurredAt,
      },
    });
  }

  /** Erasure: the person's events (their properties may hold anything about them) go. */
  async forget(accountId: AccountId, subscriberId: string, tx: Db): Promise<void> {
    await tx.automationEvent.deleteMany({ where: { accountId, subscriberId } });
  }
}
