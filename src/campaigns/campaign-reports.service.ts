import { Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { SegmentsService } from '../segments/segments.service';
import { NOT_MAILABLE } from './recipient-outcome';
import { CampaignTimelineRepository, Timeline } from './campaign-timeline.repository';
import { CampaignsService } from './campaigns.service';

/** Read-only views of a campaign that the dashboard draws: its audience and its timeline. */
@Injectable()
export class CampaignReportsService {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly segments: SegmentsService,
    private readonly timelines: CampaignTimelineRepository,
  ) {}

  /**
   * How many subscribers a send would mail now: the campaign's segment (or everyone) minus
   * those whose status says not to mail them. The send confirmation names this number.
   */
  async audience(caller: Principal, id: string) {
    const campaign = await this.campaigns.get(caller, id);
    return this.segments.countAudience(caller, campaign.segment_id, NOT_MAILABLE);
  }

  /** The campaign's events over time, for its stats chart. */
  async timeline(caller: Principal, id: string): Promise<Timeline> {
    await this.campaigns.get(caller, id); // 404 for another account's campaign
    return this.timelines.timeline(caller.accountId, id);
  }
}
