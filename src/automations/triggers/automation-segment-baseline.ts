import { Injectable } from '@nestjs/common';
import { Automation } from '../../generated/prisma/client';
import { accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { SegmentsService } from '../../segments/segments.service';
import { AutomationTriggersRepository } from './automation-triggers.repository';

/**
 * At activation, in its transaction: who matches a segment_entered automation's segment now
 * has not "entered" it, so only later arrivals enrol.
 */
@Injectable()
export class AutomationSegmentBaseline {
  constructor(
    private readonly triggers: AutomationTriggersRepository,
    private readonly segments: SegmentsService,
  ) {}

  async baseline(automation: Automation, tx: Db): Promise<void> {
    if (automation.triggerType !== 'segment_entered' || !automation.triggerRef) return;
    const accountId = accountIdOfRow(automation.accountId);
    const audience = await this.segments.audienceSql(accountId, automation.triggerRef);
    if (audience) await this.triggers.baseline(accountId, automation.id, audience, tx);
  }
}
