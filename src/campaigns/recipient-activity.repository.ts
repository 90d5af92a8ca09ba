import { Injectable } from '@nestjs/common';
import { PrismaService } from '../platform/database/prisma.service';
import { RecipientRef } from './recipient-token';

/**
 * What recipients do with a campaign message: unsubscribe, open, click. Each is one event
 * from one person, so it is written when it happens; campaign counters count each recipient
 * once (the first open or click), subscriber statistics count every event.
 */
@Injectable()
export class RecipientActivityRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Idempotent; a subscriber erased meanwhile simply matches nothing. */
  async unsubscribe(ref: RecipientRef): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE subscribers SET status = 'unsubscribed', updated_at = now()
       WHERE account_id = ${ref.accountId}::uuid AND id = ${ref.subscriberId}::uuid
         AND status <> 'unsubscribed'`;
  }

  async recordOpen(ref: RecipientRef & { campaignId: string }): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const updated = await tx.$executeRaw`
        UPDATE subscribers SET stat_opens = stat_opens + 1, last_open_at = now()
         WHERE account_id = ${ref.accountId}::uuid AND id = ${ref.subscriberId}::uuid`;
      if (updated === 0) return;
      await tx.$executeRaw`
        WITH first_open AS (
          UPDATE campaign_recipients SET opened_at = now()
           WHERE account_id = ${ref.accountId}::uuid AND campaign_id = ${ref.campaignId}::uuid
             AND subscriber_id = ${ref.subscriberId}::uuid AND opened_at IS NULL
          RETURNING campaign_id
        )
        UPDATE campaigns SET open_count = open_count + 1
         WHERE id IN (SELECT campaign_id FROM first_open)`;
    });
  }

  async recordClick(ref: RecipientRef & { campaignId: string }): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const updated = await tx.$executeRaw`
        UPDATE subscribers SET stat_clicks = stat_clicks + 1, last_click_at = now()
         WHERE account_id = ${ref.accountId}::uuid AND id = ${ref.subscriberId}::uuid`;
      if (updated === 0) return;
      await tx.$executeRaw`
        WITH first_click AS (
          UPDATE campaign_recipients SET clicked_at = now()
           WHERE account_id = ${ref.accountId}::uuid AND campaign_id = ${ref.campaignId}::uuid
             AND subscriber_id = ${ref.subscriberId}::uuid AND clicked_at IS NULL
          RETURNING campaign_id
        )
        UPDATE campaigns SET click_count = click_count + 1
         WHERE id IN (SELECT campaign_id FROM first_click)`;
    });
  }
}
