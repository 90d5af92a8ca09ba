import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { ApiEndpoint } from '../../platform/openapi/api-endpoint.decorator';
import { CampaignResponse } from '../definition/campaign.presenter';
import { ScheduleCampaignDto, TestSendDto, TestSendResponse } from './campaign-operations.dto';
import { CampaignOperationsService } from './campaign-operations.service';

/**
 * A campaign's operations on both surfaces (API keys on /v1, people on /dashboard/api):
 * schedule, pause, resume, cancel, test and duplicate. A state change answers with the
 * campaign in its new state; one its current state does not allow is 409.
 */
@ApiTags('campaigns')
@Controller(['v1/campaigns', 'dashboard/api/campaigns'])
export class CampaignOperationsController {
  constructor(private readonly operations: CampaignOperationsService) {}

  @Post(':id/schedule')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'scheduleCampaign',
    summary: 'Schedule a campaign',
    description:
      'A draft (or a scheduled campaign, to move it) starts sending at `send_at`, within seconds. `send_at` in the past or more than a year away: 422. The campaign is checked as a send would check it.',
    success: { status: 200, type: CampaignResponse, description: 'The campaign, `scheduled`.' },
    errors: [404, 409, 422],
  })
  schedule(
    @Caller() caller: Principal,
    @Param('id') id: string,
    @Body() body: ScheduleCampaignDto,
  ) {
    return this.operations.schedule(caller, id, body.send_at);
  }

  @Delete(':id/schedule')
  @ApiEndpoint({
    id: 'unscheduleCampaign',
    summary: 'Unschedule a campaign',
    success: { status: 200, type: CampaignResponse, description: 'The campaign, a draft again.' },
    errors: [404, 409],
  })
  unschedule(@Caller() caller: Principal, @Param('id') id: string) {
    return this.operations.unschedule(caller, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'pauseCampaign',
    summary: 'Pause a sending campaign',
    description:
      'Workers stop claiming recipients within seconds; messages already in flight finish and are counted. Nothing is lost or sent twice: resume continues from where the send stands.',
    success: { status: 200, type: CampaignResponse, description: 'The campaign, `paused`.' },
    errors: [404, 409],
  })
  pause(@Caller() caller: Principal, @Param('id') id: string) {
    return this.operations.pause(caller, id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'resumeCampaign',
    summary: 'Resume a paused campaign',
    success: { status: 200, type: CampaignResponse, description: 'The campaign, `sending`.' },
    errors: [404, 409],
  })
  resume(@Caller() caller: Principal, @Param('id') id: string) {
    return this.operations.resume(caller, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'cancelCampaign',
    summary: 'Cancel a campaign',
    description:
      'Any state before `sent`. Recipients not yet sent never will be (counted in `progress.cancelled`); messages in flight finish and are counted.',
    success: { status: 200, type: CampaignResponse, description: 'The campaign, `cancelled`.' },
    errors: [404, 409],
  })
  cancel(@Caller() caller: Principal, @Param('id') id: string) {
    return this.operations.cancel(caller, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'testCampaign',
    summary: 'Send a test of a campaign',
    description:
      'Sends the real rendering to at most 5 addresses now, subject prefixed with `[Test] ` and header `X-Herald-Test: true`, without tracking and without touching stats. An address of an erased identity: 409; a suppressed one: 422 on its item.',
    success: { status: 200, type: TestSendResponse },
    errors: [404, 409, 422],
  })
  async test(@Caller() caller: Principal, @Param('id') id: string, @Body() body: TestSendDto) {
    return { results: await this.operations.test(caller, id, body.emails) };
  }

  @Post(':id/duplicate')
  @ApiEndpoint({
    id: 'duplicateCampaign',
    summary: 'Duplicate a campaign',
    description: 'A new draft with the same content, audience, sender and rate, named "… (copy)".',
    success: { status: 201, type: CampaignResponse },
    errors: [404],
  })
  duplicate(@Caller() caller: Principal, @Param('id') id: string) {
    return this.operations.duplicate(caller, id);
  }
}
