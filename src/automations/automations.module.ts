import { Module } from '@nestjs/common';
import { CampaignsCoreModule } from '../campaigns/campaigns-core.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { TemplatesModule } from '../templates/templates.module';
import { AutomationsRepository } from './definition/automations.repository';
import { AutomationErasure } from './engine/automation-erasure';
import { AutomationExits } from './engine/automation-exits';
import { AutomationGuardPauses } from './engine/automation-guard-pauses';
import { AutomationEngine } from './engine/automation-engine';
import { AutomationEnrolment } from './runs/automation-enrolment';
import { AutomationRunEvents } from './runs/automation-run-events';
import { AutomationRunsRepository } from './runs/automation-runs.repository';
import { AutomationCreatedTrigger } from './triggers/automation-created-trigger';
import { AutomationDateTrigger } from './triggers/automation-date-trigger';
import { AutomationEventsRepository } from './triggers/automation-events.repository';
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
