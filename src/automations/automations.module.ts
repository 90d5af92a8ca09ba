import { Module } from '@nestjs/common';
import { CampaignsCoreModule } from '../campaigns/campaigns-core.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { TemplatesModule } from '../templates/templates.module';
import { TransactionalCoreModule } from '../transactional/transactional.module';
import { AutomationsController } from './definition/automations.controller';
import { AutomationsRepository } from './definition/automations.repository';
import { AutomationsService } from './definition/automations.service';
import { AutomationErasure } from './engine/automation-erasure';
import { AutomationExits } from './engine/automation-exits';
import { AutomationGuardPauses } from './engine/automation-guard-pauses';
import { AutomationEngine } from './engine/automation-engine';
import { AutomationEnrolment } from './runs/automation-enrolment';
import { AutomationRunEvents } from './runs/automation-run-events';
import { AutomationRunsController } from './runs/automation-runs.controller';
import { AutomationRunsRepository } from './runs/automation-runs.repository';
import { AutomationRunsService } from './runs/automation-runs.service';
import { SubscriberRunsDashboardController } from './runs/subscriber-runs-dashboard.controller';
import { AutomationCreatedTrigger } from './triggers/automation-created-trigger';
import { AutomationDateTrigger } from './triggers/automation-date-trigger';
import { AutomationEventsController } from './triggers/automation-events.controller';
import { AutomationEventsRepository } from './triggers/automation-events.repository';
import { AutomationEventsService } from './triggers/automation-events.service';
import { AutomationSegmentBaseline } from './triggers/automation-segment-baseline';
import { AutomationSegmentEntries } from './triggers/automation-segment-entries';
import { AutomationTriggersRepository } from './triggers/automation-triggers.repository';

/** What the API and the workers both use of the automations data layer. */
const SHARED_PROVIDERS = [
  AutomationsRepository,
  AutomationRunsRepository,
  AutomationEventsRepository,
  AutomationTriggersRepository,
  AutomationEnrolment,
  AutomationRunEvents,
  AutomationSegmentBaseline,
];

/**
 * The automations data layer, shared by the API and the workers: the repositories of its
 * tables, enrolment, run events, the segment baseline of an activation, the erasure
 * participant (every process that erases needs it) and the owner of step campaigns the
 * reputation guard pauses (every process that runs the guard needs it); nothing else asks for
 * those two by name.
 */
@Module({
  imports: [CampaignsCoreModule, TemplatesModule, SenderDomainsCoreModule],
  providers: [...SHARED_PROVIDERS, AutomationErasure, AutomationGuardPauses],
  exports: [...SHARED_PROVIDERS, CampaignsCoreModule, TemplatesModule, SenderDomainsCoreModule],
})
export class AutomationsCoreModule {}

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
export class AutomationsModule {}

/**
 * The engine and the trigger sweeps: loaded only by processes that run workers. Each is a
 * query over PostgreSQL, so any number of worker processes share the work.
 */
@Module({
  imports: [AutomationsCoreModule],
  providers: [
    AutomationEngine,
    AutomationExits,
    AutomationCreatedTrigger,
    AutomationSegmentEntries,
    AutomationDateTrigger,
  ],
})
export class AutomationWorkersModule {}
