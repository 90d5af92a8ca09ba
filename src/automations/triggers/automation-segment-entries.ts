import { Injectable } from '@nestjs/common';
import { Automation } from '../../generated/prisma/client';
import { accountIdOfRow } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { SegmentsService } from '../../segments/segments.service';
import { SEGMENT_TICK_MS } from '../automations.settings';
import { AutomationsRepository } from '../definition/automations.repository';
import { AutomationEnrolment } from '../runs/automation-enrolment';
import { AutomationTriggersRepository } from './automation-triggers.repository';

/**
 * segment_entered: a subscriber enters when they come to match the segment after not matching
 * it. The members at activation are the baseline (no backfill: AutomationSegmentBaseline);
 * every sweep enrols who came to match since the last one and forgets who stopped matching.
 */
@Injectable()
export class AutomationSegmentEntries extends PeriodicService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly automations: AutomationsRepository,
    private readonly triggers: AutomationTriggersRepository,
    private readonly segments: SegmentsService,
    private readonly enrolment: AutomationEnrolment,
  ) {
    super('automation segment sweep', SEGMENT_TICK_MS);
  }

  protected async pass(): Promise<void> {
    for (const automation of await this.automations.activeWithTrigger('segment_entered')) {
      await this.sweep(automation).catch((error: unknown) =>
        this.logger.warn(`segment sweep of automation ${automation.id} failed: ${String(error)}`),
      );
    }
  }

  private async sweep(automation: Automation): Promise<void> {
    const accountId = accountIdOfRow(automation.accountId);
    // A deleted segment matches nobody: its automation waits for an edit.
    const audience = await this.segments.audienceSql(accountId, automation.triggerRef);
    if (!audience) return;
    const now = Date.now();
    await this.prisma.$transaction(
      async (tx) => {
        const entered = await this.triggers.segmentEntries(accountId, automation.id, audience, tx);
        await this.enrolment.enrol(
          automation,
          entered.map((subscriberId) => ({ subscriberId, key: `segment:${now}` })),
          tx,
        );
      },
      { timeout: 60_000 },
    );
  }
}
