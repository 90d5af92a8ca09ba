import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { CampaignReportsService } from './campaign-reports.service';

/** What only the dashboard draws; everything else is CampaignsController. */
@ApiExcludeController()
@Controller('dashboard/api/campaigns')
export class CampaignsDashboardController {
  constructor(private readonly reports: CampaignReportsService) {}

  @Get(':id/audience')
  audience(@Caller() caller: Principal, @Param('id') id: string) {
    return this.reports.audience(caller, id);
  }

  @Get(':id/timeline')
  timeline(@Caller() caller: Principal, @Param('id') id: string) {
    return this.reports.timeline(caller, id);
  }
}
