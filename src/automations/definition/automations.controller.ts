import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { ApiEndpoint } from '../../platform/openapi/api-endpoint.decorator';
import { ApiPageQuery } from '../../platform/pagination/api-page-query.decorator';
import { ListQuery } from '../../platform/pagination/page-request';
import { AutomationRunPage, AutomationRunResponse } from '../runs/automation-run.presenter';
import { AutomationRunsService } from '../runs/automation-runs.service';
import { CreateAutomationDto, EnrolDto, UpdateAutomationDto } from './automation.dto';
import {
  AutomationPage,
  AutomationResponse,
  AutomationStatsResponse,
} from './automation.presenter';
import { AutomationsService } from './automations.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('automations')
@Controller(['v1/automations', 'dashboard/api/automations'])
export class AutomationsController {
  constructor(
    private readonly automations: AutomationsService,
    private readonly runs: AutomationRunsService,
  ) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listAutomations',
    summary: 'List automations',
    success: { status: 200, type: AutomationPage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.automations.list(caller, query);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getAutomation',
    summary: 'Get an automation',
    success: { status: 200, type: AutomationResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.automations.get(caller, id);
  }

  @Post()
  @ApiEndpoint({
    id: 'createAutomation',
    summary: 'Create an automation (a draft)',
    success: { status: 201, type: AutomationResponse },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateAutomationDto) {
    return this.automations.create(caller, body);
  }

  @Patch(':id')
  @ApiEndpoint({
    id: 'updateAutomation',
    summary: 'Edit a draft or paused automation',
    description:
      'Runs go on at their step id; a run whose step was removed exits (step_removed). An active automation → 409.',
    success: { status: 200, type: AutomationResponse },
    errors: [404, 409, 422],
  })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateAutomationDto) {
    return this.automations.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'deleteAutomation',
    summary: 'Delete an automation, cancelling its runs',
    success: { status: 204 },
    errors: [404],
  })
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.automations.delete(caller, id);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'activateAutomation',
    summary: 'Activate a draft or paused automation',
    description: 'Only what happens from now on enrols. Steps that fell due while paused run now.',
    success: { status: 200, type: AutomationResponse },
    errors: [404, 409],
  })
  activate(@Caller() caller: Principal, @Param('id') id: string) {
    return this.automations.activate(caller, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'pauseAutomation',
    summary: 'Pause an active automation: nothing enrols, runs wait',
    success: { status: 200, type: AutomationResponse },
    errors: [404, 409],
  })
  pause(@Caller() caller: Principal, @Param('id') id: string) {
    return this.automations.pause(caller, id);
  }

  @Get(':id/stats')
  @ApiEndpoint({
    id: 'getAutomationStats',
    summary: "An automation's runs and each step's figures",
    success: { status: 200, type: AutomationStatsResponse },
    errors: [404],
  })
  stats(@Caller() caller: Principal, @Param('id') id: string) {
    return this.runs.stats(caller, id);
  }

  @Get(':id/runs')
  @ApiPageQuery()
  @ApiQuery({
    name: 'status',
    required: false,
    enum: ['waiting', 'completed', 'exited', 'cancelled', 'failed'],
  })
  @ApiQuery({ name: 'subscriber_id', required: false, type: String })
  @ApiEndpoint({
    id: 'listAutomationRuns',
    summary: "An automation's runs, newest first",
    success: { status: 200, type: AutomationRunPage },
    errors: [404],
  })
  listRuns(
    @Caller() caller: Principal,
    @Param('id') id: string,
    @Query() query: ListQuery & { status?: unknown; subscriber_id?: unknown },
  ) {
    return this.runs.list(caller, id, query);
  }

  @Post(':id/runs')
  @ApiEndpoint({
    id: 'enrolInAutomation',
    summary: 'Enrol one subscriber by hand',
    description:
      "Any trigger type. The trigger's filter and the reentry rule apply (409 when they turn the subscriber away); a draft → 409.",
    success: { status: 201, type: AutomationRunResponse },
    errors: [404, 409, 422],
  })
  enrol(@Caller() caller: Principal, @Param('id') id: string, @Body() body: EnrolDto) {
    return this.runs.enrol(caller, id, body.subscriber_id);
  }
}
