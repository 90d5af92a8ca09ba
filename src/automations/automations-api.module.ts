import { Module } from '@nestjs/common';
import { TransactionalCoreModule } from '../transactional/transactional.module';
import { AutomationsController } from './definition/automations.controller';
import { AutomationsService } from './definition/automations.service';
import { AutomationRunsController } from './runs/automation-runs.controller';
import { AutomationRunsService } from './runs/automation-runs.service';
import { SubscriberRunsDashboardController } from './runs/subscriber-runs-dashboard.controller';
import { AutomationEventsController } from './triggers/automation-events.controller';
import { AutomationEventsService } from './triggers/automation-events.service';
import { AutomationsCoreModule } from './automations.module';

/** /v1/automations, /v1/automation-runs and /v1/events, on both surfaces. */
@Module({
  imports: [AutomationsCoreModule, TransactionalCoreModule],
  controllers: [
    AutomationsController,
    AutomationRunsController,
    AutomationEventsController,
    SubscriberRunsDashboardController,
  ],
  providers: [AutomationsService, AutomationRunsService, AutomationEventsService],
})
export class AutomationsApiModule {}
