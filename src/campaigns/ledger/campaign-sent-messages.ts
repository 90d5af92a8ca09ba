import { Injectable } from '@nestjs/common';
import { AccountId, accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import * as sql from './campaign-sent-messages.sql';

/** A campaign message Herald sent (or tried to). */
export interface SentCampaignMessage {
  accountId: AccountId;
  /** The relay refused it with a 5xx while sending: that hard bounce was counted then. */
  refusedAtSending: boolean;
  /** When the relay answered (null while it is still being sent). */
  sentAt: Date | null;
}

/**
 * Finds campaign messages that left, for the feedback loop: a bounce or complaint names a
 * message (through its return path or Message-ID), or only its recipient.
 */
@Injectable()
export class CampaignSentMessages {
  constructor(private readonly prisma: PrismaService) {}

  async find(
    campaignId: string,
    subscriberId: string,
    db: Db = this.prisma,
  ): Promise<SentCampaignMessage | null> {
    const [row] = await db.$queryRaw<
      { account_id: string; refused: boolean; sent_at: Date | null }[]
    >(sql.sentRecipient(campaignId, subscriberId));
    return row
      ? {
          accountId: accountIdOfRow(row.account_id),
          refusedAtSending: row.refused,
          sentAt: row.sent_at,
        }
      : null;
  }

  /** The latest message to any of these subscribers in the last `days` days. */
  async latestTo(
    subscribers: { accountId: AccountId; subscriberId: string }[],
    days: number,
  ): Promise<{ campaignId: string; subscriberId: string; sentAt: Date } | null> {
    if (subscribers.length === 0) return null;
    const [row] = await this.prisma.$queryRaw<
      { campaign_id: string; subscriber_id: string; sent_at: Date }[]
    >(
      sql.latestSentTo(
        subscribers.map((s) => s.accountId),
        subscribers.map((s) => s.subscriberId),
        days,
      ),
    );
    return row
      ? { campaignId: row.campaign_id, subscriberId: row.subscriber_id, sentAt: row.sent_at }
      : null;
  }
}
