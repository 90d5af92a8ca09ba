import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { ApiEndpoint } from '../../platform/openapi/api-endpoint.decorator';
import { AutomationRunResponse } from './automation-run.presenter';
import { AutomationRunsService } from './automation-runs.service';

@ApiTags('automations')
@Controller(['v1/automation-runs', 'dashboard/api/automation-runs'])
export class AutomationRunsController {
  constructor(private readonly runs: AutomationRunsService) {}

  @Get(':id')
  @ApiEndpoint({
    id: 'getAutomationRun',
    summary: 'A run with its step timeline',
    success: { status: 200, type: AutomationRunResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.runs.get(caller, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'cancelAutomationRun',
    summary: 'Cancel a waiting run',
    success: { status: 200, type: AutomationRunResponse },
    errors: [404, 409],
  })
  cancel(@Caller() caller: Principal, @Param('id') id: string) {
    return this.runs.cancel(caller, id);
  }
}
