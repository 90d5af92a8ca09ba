import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { PreviewCampaignDto } from './campaign-operations.dto';
import { CampaignOperationsService } from './campaign-operations.service';
import { CampaignReportsService } from './campaign-reports.service';

/** What only the dashboard draws; everything else is CampaignsController. */
@ApiExcludeController()
@Controller('dashboard/api/campaigns')
export class CampaignsDashboardController {
  constructor(
    private readonly reports: CampaignReportsService,
    private readonly operations: CampaignOperationsService,
  ) {}

  /** Recent campaigns' bounce and complaint rates against the reputation guard's limits. */
  @Get('reputation')
  reputation(@Caller() caller: Principal) {
    return this.reports.reputation(caller);
  }

  @Get(':id/reputation')
  campaignReputation(@Caller() caller: Principal, @Param('id') id: string) {
    return this.reports.campaignReputation(caller, id);
  }

  @Get(':id/audience')
  audience(@Caller() caller: Principal, @Param('id') id: string) {
    return this.reports.audience(caller, id);
  }

  @Get(':id/timeline')
  timeline(@Caller() caller: Principal, @Param('id') id: string) {
    return this.reports.timeline(caller, id);
  }

  /** The campaign page's preview: the message as it will be sent, optionally to one subscriber. */
  @Post(':id/preview')
  @HttpCode(200)
  preview(@Caller() caller: Principal, @Param('id') id: string, @Body() body: PreviewCampaignDto) {
    return this.operations.preview(caller, id, body.subscriber_id);
  }
}
