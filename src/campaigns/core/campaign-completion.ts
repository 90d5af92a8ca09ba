import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { CampaignDeliveryRunsRepository } from '../ledger/campaign-delivery-runs.repository';
import { CampaignEvents } from './campaign-events';
import { CampaignsRepository } from './campaigns.repository';

/**
 * `sending` → `sent` once nothing is left to do: the audience fully snapshotted and no
 * recipient pending, claimed or deferred. In the same transaction every run's counts are
 * folded into the campaign, so a sent campaign's counters are final. Every job that might
 * have finished the campaign tries; one succeeds and publishes campaign.sent.
 */
@Injectable()
export class CampaignCompletion {
  constructor(
    private readonly prisma: PrismaService,
    private readonly campaigns: CampaignsRepository,
    private readonly runs: CampaignDeliveryRunsRepository,
    private readonly events: CampaignEvents,
  ) {}

  async completeIfFinished(accountId: AccountId, campaignId: string): Promise<boolean> {
    const completed = await this.prisma.$transaction(async (tx) => {
      if (!(await this.campaigns.completeIfFinished(accountId, campaignId, tx))) return false;
      await this.runs.foldAll(accountId, campaignId, tx);
      return true;
    });
    if (completed) await this.events.statusChanged(accountId, campaignId, 'campaign.sent');
    return completed;
  }
}
