import { Injectable } from '@nestjs/common';
import { Principal } from '../../auth/principal';
import { SegmentsService } from '../../segments/segments.service';
import { MAILABLE_STATUS } from '../ledger/mailability';
import { CampaignTimelineRepository, Timeline } from '../ledger/campaign-timeline.repository';
import { CampaignsService } from '../definition/campaigns.service';

/** Read-only views of a campaign that the dashboard draws: its audience and its timeline. */
@Injectable()
export class CampaignReportsService {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly segments: SegmentsService,
    private readonly timelines: CampaignTimelineRepository,
  ) {}

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
