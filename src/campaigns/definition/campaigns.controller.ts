import { ApiEndpoint } from '../../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiPageQuery } from '../../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../../auth/principal';
import { ListQuery } from '../../platform/pagination/page-request';
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
@Controller(['v1/campaigns', 'dashboard/api/campaigns'])
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listCampaigns',
    summary: 'List campaigns',
    success: { status: 200, type: CampaignPage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.campaigns.list(caller, query);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getCampaign',
    summary: 'Get a campaign',
    success: { status: 200, type: CampaignResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.campaigns.get(caller, id);
  }

  @Post()
  @ApiEndpoint({
    id: 'createCampaign',
    summary: 'Create a draft campaign',
    success: { status: 201, type: CampaignResponse },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateCampaignDto) {
    return this.campaigns.create(caller, body);
  }

  @Patch(':id')
  @ApiEndpoint({
    id: 'updateCampaign',
    summary: 'Update a draft or scheduled campaign',
    success: {
      status: 200,
      type: CampaignResponse,
      description: 'Drafts and scheduled campaigns only; once sending has started, 409.',
    },
    errors: [404, 409, 422],
  })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateCampaignDto) {
    return this.campaigns.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'deleteCampaign',
    summary: 'Delete a draft campaign',
    success: { status: 204, description: 'Drafts only; otherwise 409.' },
    errors: [404, 409],
  })
  async delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    await this.campaigns.delete(caller, id);
  }

  @Post(':id/send')
  @HttpCode(202)
  @ApiEndpoint({
    id: 'sendCampaign',
    summary: 'Send a campaign',
    description:
      'Exactly one call wins; every other and every later call gets 409. Erased recipients are skipped silently.',
    success: { status: 202, type: SendAcceptedResponse },
    errors: [404, 409, 422],
  })
  send(@Caller() caller: Principal, @Param('id') id: string) {
    return this.campaigns.send(caller, id);
  }

  @Get(':id/stats')
  @ApiEndpoint({
    id: 'getCampaignStats',
    summary: 'Get the statistics of a campaign',
    success: { status: 200, type: CampaignStatsResponse },
    errors: [404],
  })
  stats(@Caller() caller: Principal, @Param('id') id: string) {
    return this.campaigns.stats(caller, id);
  }
}
