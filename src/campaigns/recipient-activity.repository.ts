import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { RecipientRef } from './recipient-token';

/**
 * What recipients do with a campaign message: open, click (an unsubscribe is feedback, see
 * FeedbackService). Each is one event from one person, so it is written when it happens;
 * campaign counters count each recipient once (the first open or click), subscriber
 * statistics count every event.
 */
@Injectable()
export class RecipientActivityRepository {
  constructor(private readonly prisma: PrismaService) {}

  recordOpen(ref: RecipientRef & { campaignId: string }): Promise<void> {
    return this.record(ACTIVITY.open, ref);
  }

  recordClick(ref: RecipientRef & { campaignId: string }): Promise<void> {
    return this.record(ACTIVITY.click, ref);
  }

  /** Counts the event on the subscriber, and on the campaign the first time per recipient. */
  private async record(
    columns: ActivityColumns,
    ref: RecipientRef & { campaignId: string },
  ): Promise<void> {
    const { subscriberCount, subscriberLast, recipientAt, campaignCount } = columns;
    await this.prisma.$transaction(async (tx) => {
      const updated = await tx.$executeRaw`
        UPDATE subscribers SET ${subscriberCount} = ${subscriberCount} + 1, ${subscriberLast} = now(),
               -- An open or click proves the mailbox works: soft bounces start counting anew.
               soft_bounce_streak = 0
         WHERE account_id = ${ref.accountId}::uuid AND id = ${ref.subscriberId}::uuid`;
      if (updated === 0) return;
      await tx.$executeRaw`
        WITH first_event AS (
          UPDATE campaign_recipients SET ${recipientAt} = now()
           WHERE account_id = ${ref.accountId}::uuid AND campaign_id = ${ref.campaignId}::uuid
             AND subscriber_id = ${ref.subscriberId}::uuid AND ${recipientAt} IS NULL
          RETURNING campaign_id
        )
        UPDATE campaigns SET ${campaignCount} = ${campaignCount} + 1
         WHERE id IN (SELECT campaign_id FROM first_event)`;
    });
  }
}

interface ActivityColumns {
  subscriberCount: Prisma.Sql;
  subscriberLast: Prisma.Sql;
  recipientAt: Prisma.Sql;
  campaignCount: Prisma.Sql;
}

/** Fixed column names per event (identifiers, never input: safe to splice with Prisma.raw). */
const ACTIVITY: Record<'open' | 'click', ActivityColumns> = {
  open: {
    subscriberCount: Prisma.raw('stat_opens'),
    subscriberLast: Prisma.raw('last_open_at'),
    recipientAt: Prisma.raw('opened_at'),
    campaignCount: Prisma.raw('open_count'),
  },
  click: {
    subscriberCount: Prisma.raw('stat_clicks'),
    subscriberLast: Prisma.raw('last_click_at'),
    recipientAt: Prisma.raw('clicked_at'),
    campaignCount: Prisma.raw('click_count'),
  },
};
