import { Injectable } from '@nestjs/common';
import { Automation } from '../../generated/prisma/client';
import { accountIdOfRow } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { CREATED_LOOKBACK_MS, CREATED_TICK_MS, ENROL_BATCH } from '../automations.settings';
import { AutomationsRepository } from '../definition/automations.repository';
import { AutomationEnrolment } from '../runs/automation-enrolment';
import { AutomationTriggersRepository } from './automation-triggers.repository';

/**
 * subscriber_created: every subscriber created after activation, however it was created (the
 * API, a batch, an import, the dashboard), found by a sweep over their time-ordered ids
 * rather than by a hook in each way in, so none is missed and a crash loses nothing. The
 * creation key makes a second enrolment of the same person impossible.
 */
@Injectable()
export class AutomationCreatedTrigger extends PeriodicService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly automations: AutomationsRepository,
    private readonly triggers: AutomationTriggersRepository,
    private readonly enrolment: AutomationEnrolment,
  ) {
    super('automation creation sweep', CREATED_TICK_MS);
  }

  protected async pass(): Promise<void> {
    for (const automation of await this.automations.activeWithTrigger('subscriber_created')) {
      await this.sweep(automation).catch((error: unknown) =>
        this.logger.warn(`creation sweep of automation ${automation.id} failed: ${String(error)}`),
      );
    }
  }

  private async sweep(automation: Automation): Promise<void> {
    if (!automation.activatedAt) return;
    const accountId = accountIdOfRow(automation.accountId);
    const startedAt = new Date();
    const cursor = automation.createdCursor ?? automation.activatedAt;
    const since = new Date(
      Math.max(automation.activatedAt.getTime(), cursor.getTime() - CREATED_LOOKBACK_MS),
    );
    for (;;) {
      const enrolled = await this.prisma.$transaction(async (tx) => {
        const ids = await this.triggers.createdSince(
          accountId,
          automation.id,
          since,
          ENROL_BATCH,
          tx,
        );
        await this.enrolment.enrol(
          automation,
          ids.map((subscriberId) => ({ subscriberId, key: 'created' })),
          tx,
        );
        return ids.length;
      });
      if (enrolled < ENROL_BATCH) break;
    }
    await this.automations.setCreatedCursor(automation.id, startedAt);
  }
}
