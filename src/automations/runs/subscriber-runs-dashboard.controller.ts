import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { AutomationRunsService } from './automation-runs.service';

/** The dashboard's subscriber page: the automations a subscriber went through. */
@ApiExcludeController()
@Controller('dashboard/api/subscribers')
export class SubscriberRunsDashboardController {
  constructor(private readonly runs: AutomationRunsService) {}

  @Get(':id/automation-runs')
  ofSubscriber(@Caller() caller: Principal, @Param('id') id: string) {
    return this.runs.ofSubscriber(caller, id);
  }
}
