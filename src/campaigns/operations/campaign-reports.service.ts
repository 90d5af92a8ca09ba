import { Inject, Injectable } from '@nestjs/common';
import { Principal } from '../../auth/principal';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { SegmentsService } from '../../segments/segments.service';
import { MAILABLE_STATUS } from '../ledger/mailability';
import { CampaignTimelineRepository, Timeline } from '../ledger/campaign-timeline.repository';
import { CampaignsService } from '../definition/campaigns.service';
import { RECENT_CAMPAIGNS_SHOWN } from '../core/campaigns.settings';
import { presentLimits, presentReputation } from './campaign-reputation';

/**
 * Read-only views of campaigns that the dashboard draws: a campaign's audience and timeline,
 * and bounce and complaint rates beside the reputation guard's limits.
 */
@Injectable()
export class CampaignReportsService {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly segments: SegmentsService,
    private readonly timelines: CampaignTimelineRepository,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  /** The recent campaigns' rates against the limits (the account overview). */
  async reputation(caller: Principal) {
    const rows = await this.campaigns.recentlyStarted(caller, RECENT_CAMPAIGNS_SHOWN);
    return {
      limits: presentLimits(this.config.deliverability.reputationGuard),
      campaigns: rows.map(presentReputation),
    };
  }

  /** One campaign's rates against the limits (why the guard paused it, on its page). */
  async campaignReputation(caller: Principal, id: string) {
    return {
      limits: presentLimits(this.config.deliverability.reputationGuard),
      campaign: presentReputation(await this.campaigns.row(caller, id)),
    };
  }

  /**
   * How many subscribers a send would mail now: the campaign's segment (or everyone), only the
   * `subscribed` (suppressed addresses aside). The send confirmation names this number.
   */
  async audience(caller: Principal, id: string) {
    const campaign = await this.campaigns.get(caller, id);
    return this.segments.countAudience(caller, campaign.segment_id, MAILABLE_STATUS);
  }

  /** The campaign's events over time, for its stats chart. */
  async timeline(caller: Principal, id: string): Promise<Timeline> {
    await this.campaigns.get(caller, id); // 404 for another account's campaign
    return this.timelines.timeline(caller.accountId, id);
  }
}
