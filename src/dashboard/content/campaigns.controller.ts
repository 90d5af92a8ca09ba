import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AuditLog } from '../../audit/audit-log';
import { CreateCampaignDto, UpdateCampaignDto } from '../../campaigns/campaign.dto';
import { MAILABLE_STATUS } from '../../campaigns/mailability';
import { CampaignsService } from '../../campaigns/campaigns.service';
import { ListQuery } from '../../platform/pagination/page-request';
import { parseSegmentFilter, SegmentFilter } from '../../segments/segment-filter';
import { SegmentsRepository } from '../../segments/segments.repository';
import { SessionGuard } from '../sessions/session.guard';
import { actingAs, DashboardUser, SignedIn } from '../sessions/signed-in';
import { CampaignTimelineRepository } from './campaign-timeline.repository';

/** Subscribers a campaign mails: only the subscribed (suppressed addresses aside). */
const MAILABLE = parseSegmentFilter({ field: 'status', op: 'eq', value: MAILABLE_STATUS });

/** Campaigns in the dashboard: the campaigns module's service, plus audience and timeline. */
@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api/campaigns')
export class DashboardCampaignsController {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly segments: SegmentsRepository,
    private readonly timelines: CampaignTimelineRepository,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  list(@SignedIn() user: DashboardUser, @Query() query: ListQuery) {
    return this.campaigns.list(actingAs(user), query);
  }

  @Get(':id')
  get(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.campaigns.get(actingAs(user), id);
  }

  /**
   * How many subscribers a send would mail now: the campaign's segment (or everyone) minus
   * everyone not `subscribed`. The send confirmation names this number.
   */
  @Get(':id/audience')
  async audience(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    const campaign = await this.campaigns.get(actingAs(user), id);
    const segment = campaign.segment_id
      ? await this.segments.findById(user.accountId, campaign.segment_id)
      : null;
    const filter: SegmentFilter = segment
      ? { kind: 'and', filters: [parseSegmentFilter(segment.filter), MAILABLE] }
      : MAILABLE;
    return {
      count: await this.segments.countMatching(user.accountId, filter),
      segment: segment ? { id: segment.id, name: segment.name } : null,
    };
  }

  @Get(':id/stats')
  stats(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.campaigns.stats(actingAs(user), id);
  }

  @Get(':id/timeline')
  async timeline(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    await this.campaigns.get(actingAs(user), id); // 404 for another account's campaign
    return this.timelines.timeline(user.accountId, id);
  }

  @Post()
  create(@SignedIn() user: DashboardUser, @Body() body: CreateCampaignDto) {
    return this.campaigns.create(actingAs(user), body);
  }

  @Patch(':id')
  update(
    @SignedIn() user: DashboardUser,
    @Param('id') id: string,
    @Body() body: UpdateCampaignDto,
  ) {
    return this.campaigns.update(actingAs(user), id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.campaigns.delete(actingAs(user), id);
  }

  @Post(':id/send')
  @HttpCode(202)
  async send(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    const accepted = await this.campaigns.send(actingAs(user), id);
    await this.audit.record(user.accountId, {
      action: 'campaign.sent',
      metadata: { user_id: user.userId, campaign_id: id },
    });
    return accepted;
  }
}
