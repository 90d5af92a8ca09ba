import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { presentCampaign, CampaignPage } from './campaign.presenter';
import { CampaignsRepository } from './campaigns.repository';

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('v1/campaigns')
export class CampaignsController {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1..100, default 25' })
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiOkResponse({ type: CampaignPage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.paginator.page(
      caller.accountId,
      'campaigns',
      query,
      (page) => this.campaigns.listPage(caller.accountId, page),
      presentCampaign,
    );
  }
}
