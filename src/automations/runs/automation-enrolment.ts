import { Injectable } from '@nestjs/common';
import { Automation, Prisma } from '../../generated/prisma/client';
import { accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { SegmentsService } from '../../segments/segments.service';
import type { AutomationStep, AutomationTrigger } from '../definition/automation-definition';
import { AutomationRunsRepository } from './automation-runs.repository';

/** One subscriber to enrol, with the key of what triggered it (see AutomationRun.triggerKey). */
export interface Entry {
  subscriberId: string;
  key: string;
}

/**
 * The one way into an automation, for every trigger and for manual enrolment: the trigger's
 * filter and the reentry rule are applied in the INSERT itself, under a per-automation lock
 * held to the end of the caller's transaction, so concurrent triggers cannot enrol a person
 * twice where the rule says once.
 */
@Injectable()
export class AutomationEnrolment {
  constructor(
    private readonly runs: AutomationRunsRepository,
    private readonly segments: SegmentsService,
  ) {}

  async enrol(
    automation: Automation,
    entries: Entry[],
    tx: Db,
  ): Promise<{ id: string; subscriber_id: string }[]> {
    if (entries.length === 0) return [];
    await this.runs.lockEnrolments(automation.id, tx);
    const trigger = automation.trigger as unknown as AutomationTrigger;
    const steps = automation.steps as unknown as AutomationStep[];
    return this.runs.enrol(
      accountIdOfRow(automation.accountId),
      { id: automation.id, firstStepId: steps[0].id, reentry: automation.reentry },
      entries,
      this.filterOf(trigger),
      tx,
    );
  }

  /** The trigger's filter over `subscribers s` (everyone without one). */
  filterOf(trigger: AutomationTrigger): Prisma.Sql {
    return trigger.filter === undefined
      ? Prisma.sql`TRUE`
      : this.segments.filterSql(trigger.filter);
  }
}
