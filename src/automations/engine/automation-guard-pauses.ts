import { Injectable, OnModuleInit } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log';
import {
  GuardPause,
  StepCampaignOwner,
  StepCampaignPauses,
} from '../../campaigns/core/step-campaign-pauses';
import type { Db } from '../../platform/database/db';
import { AutomationsRepository } from '../definition/automations.repository';

/**
 * The reputation guard paused one of an automation's step campaigns: the automation pauses
 * with it, as a campaign the guard pauses does. Its runs then wait where they are and nothing
 * enrols, rather than queue more mail behind a campaign that no longer sends; the pause is in
 * the audit log with the guard's reason. Activating the automation again is the resume: it
 * resumes its paused step campaigns (AutomationsService.activate).
 */
@Injectable()
export class AutomationGuardPauses implements StepCampaignOwner, OnModuleInit {
  constructor(
    private readonly pauses: StepCampaignPauses,
    private readonly automations: AutomationsRepository,
    private readonly audit: AuditLog,
  ) {}

  onModuleInit(): void {
    this.pauses.register(this);
  }

  async guardPaused({ accountId, automationId, reason }: GuardPause, tx: Db): Promise<void> {
    // A draft or paused automation stays as it is; its activation resumes the campaign.
    const paused = await this.automations.transition(
      accountId,
      automationId,
      ['active'],
      'paused',
      tx,
      { pausedReason: reason },
    );
    if (!paused) return;
    await this.audit.record(
      accountId,
      { action: 'automation.paused', metadata: { automation_id: automationId, reason } },
      tx,
    );
  }
}
