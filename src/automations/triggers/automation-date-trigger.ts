import { Injectable } from '@nestjs/common';
import { Automation } from '../../generated/prisma/client';
import { accountIdOfRow } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { DATE_TICK_MS, ENROL_BATCH } from '../automations.settings';
import type { AutomationTrigger } from '../definition/automation-definition';
import { AutomationsRepository } from '../definition/automations.repository';
import { AutomationEnrolment } from '../runs/automation-enrolment';
import { AutomationTriggersRepository } from './automation-triggers.repository';
import type { DateSweep } from './automation-triggers.sql';

/**
 * date: yearly, at `at` in each subscriber's time zone (see datesDue). The year of the
 * anniversary keys the run, so each year's date enrols once, whichever worker sees it first.
 */
@Injectable()
export class AutomationDateTrigger extends PeriodicService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly automations: AutomationsRepository,
    private readonly triggers: AutomationTriggersRepository,
    private readonly enrolment: AutomationEnrolment,
  ) {
    super('automation date sweep', DATE_TICK_MS);
  }

  protected async pass(): Promise<void> {
    for (const automation of await this.automations.activeWithTrigger('date')) {
      await this.sweep(automation).catch((error: unknown) =>
        this.logger.warn(`date sweep of automation ${automation.id} failed: ${String(error)}`),
      );
    }
  }

  private async sweep(automation: Automation): Promise<void> {
    if (!automation.activatedAt) return;
    const trigger = automation.trigger as unknown as Extract<AutomationTrigger, { type: 'date' }>;
    const accountId = accountIdOfRow(automation.accountId);
    const sweep: DateSweep = {
      automationId: automation.id,
      trigger: {
        field: trigger.field,
        offsetDays: trigger.offset_days ?? 0,
        at: trigger.at ?? '09:00',
      },
      now: new Date(),
      since: automation.activatedAt,
      limit: ENROL_BATCH,
    };
    for (;;) {
      const enrolled = await this.prisma.$transaction(async (tx) => {
        const due = await this.triggers.datesDue(accountId, sweep, tx);
        const runs = await this.enrolment.enrol(
          automation,
          due.map((d) => ({ subscriberId: d.subscriber_id, key: `date:${d.year}` })),
          tx,
        );
        // Entries the filter or the reentry rule turned away come back every pass: stop
        // when nothing new could be enrolled.
        return runs.length === 0 ? 0 : due.length;
      });
      if (enrolled < ENROL_BATCH) break;
    }
  }
}
