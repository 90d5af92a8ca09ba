import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateCampaignDto, UpdateCampaignDto } from './campaign.dto';
import {
  CampaignPage,
  CampaignResponse,
  CampaignStatsResponse,
  SendAcceptedResponse,
} from './campaign.presenter';
import { CampaignsService } from './campaigns.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('campaigns')
@ApiBearerAuth()
@Controller(['v1/campaigns', 'dashboard/api/campaigns'])
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @ApiPageQuery()
  @ApiOkResponse({ type: CampaignPage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.campaigns.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: CampaignResponse })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.campaigns.get(caller, id);
  }

  @Post()
  @ApiCreatedResponse({ type: CampaignResponse })
  create(@Caller() caller: Principal, @Body() body: CreateCampaignDto) {
    return this.campaigns.create(caller, body);
  }

  @Patch(':id')
  @ApiOkResponse({ type: CampaignResponse, description: 'Drafts only; otherwise 409.' })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateCampaignDto) {
    return this.campaigns.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Drafts only; otherwise 409.' })
  async delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    await this.campaigns.delete(caller, id);
  }

  @Post(':id/send')
  @HttpCode(202)
  @ApiAcceptedResponse({
    type: SendAcceptedResponse,
    description: 'Exactly one call wins; every other and every later call gets 409.',
  })
  send(@Caller() caller: Principal, @Param('id') id: string) {
    return this.campaigns.send(caller, id);
  }

  @Get(':id/stats')
  @ApiOkResponse({ type: CampaignStatsResponse })
  stats(@Caller() caller: Principal, @Param('id') id: string) {
    return this.campaigns.stats(caller, id);
  }
}
