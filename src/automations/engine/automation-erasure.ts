import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Db } from '../../platform/database/db';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../../erasure/erasure-participant';
import { AutomationRunEvents } from '../runs/automation-run-events';
import { AutomationRunsRepository } from '../runs/automation-runs.repository';
import { AutomationEventsRepository } from '../triggers/automation-events.repository';
import { AutomationTriggersRepository } from '../triggers/automation-triggers.repository';

/**
 * Erasure, inside the erasing transaction: the person's waiting runs exit (`erased`), no run
 * keeps their id, and their events and segment memberships go. Runs never held an address.
 */
@Injectable()
export class AutomationErasure implements ErasureParticipant, OnModuleInit {
  readonly name = 'automations';

  constructor(
    private readonly runs: AutomationRunsRepository,
    private readonly automationEvents: AutomationEventsRepository,
    private readonly triggers: AutomationTriggersRepository,
    private readonly events: AutomationRunEvents,
    private readonly registry: ErasureRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    const { accountId, subscriberId } = identity;
    if (!subscriberId) return;
    const runs = await this.runs.exitErased(accountId, subscriberId, tx);
    await this.automationEvents.forget(accountId, subscriberId, tx);
    await this.triggers.forgetMember(subscriberId, tx);
    await this.events.ended(
      tx,
      accountId,
      runs
        .filter((run) => run.exit_reason === 'erased')
        .map((run) => ({ ...run, subscriber_id: null, status: 'exited' as const })),
    );
  }
}
