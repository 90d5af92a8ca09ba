import { Injectable } from '@nestjs/common';
import { PrismaService } from '../platform/database/prisma.service';
import { SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { SubscribersService } from '../subscribers/subscribers.service';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import type { ActivityKind } from './campaign-ledger.sql';
import { CampaignsRepository } from './campaigns.repository';
import { RecipientRef } from './recipient-token';

/**
 * What recipients do with a campaign message: unsubscribe, open, click. Each is one event
 * from one person, so it is written when it happens; campaign counters count each recipient
 * once (the first open or click), subscriber statistics count every event.
 */
@Injectable()
export class RecipientActivityService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly subscribers: SubscribersService,
    private readonly statistics: SubscriberStatistics,
    private readonly ledger: CampaignLedgerRepository,
    private readonly campaigns: CampaignsRepository,
  ) {}

  /** Idempotent; a subscriber erased meanwhile simply matches nothing. */
  unsubscribe(ref: RecipientRef): Promise<void> {
    return this.subscribers.unsubscribe(ref.accountId, ref.subscriberId);
  }

  recordOpen(ref: RecipientRef & { campaignId: string }): Promise<void> {
    return this.record('open', ref);
  }

  recordClick(ref: RecipientRef & { campaignId: string }): Promise<void> {
    return this.record('click', ref);
  }

  /**
   * Counts the event on the subscriber, and on the campaign the first time per recipient, in
   * one transaction. Locks go subscriber, ledger row, campaign, as they always have here.
   */
  private async record(kind: ActivityKind, ref: RecipientRef & { campaignId: string }) {
    const { accountId, subscriberId, campaignId } = ref;
    await this.prisma.$transaction(async (tx) => {
      if (!(await this.statistics.recordEngagement(accountId, subscriberId, kind, tx))) return;
      if (await this.ledger.markFirstActivity(accountId, campaignId, subscriberId, kind, tx)) {
        await this.campaigns.countFirstActivity(accountId, campaignId, kind, tx);
      }
    });
  }
}
