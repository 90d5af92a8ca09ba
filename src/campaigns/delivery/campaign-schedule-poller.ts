import { Injectable } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import type { AccountId } from '../../platform/database/account-id';
import { ValidationFailedError } from '../../platform/errors/api-errors';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { SCHEDULE_BATCH, SCHEDULE_TICK_MS } from '../core/campaigns.settings';
import { CampaignEvents } from '../core/campaign-events';
import { CampaignSendQueue } from '../core/campaign-send-queue';
import { CampaignsRepository } from '../core/campaigns.repository';

/**
 * Starts scheduled campaigns when their time comes. Every worker process polls PostgreSQL
 * once a second (one indexed query) rather than trusting a delayed job in Redis: the
 * schedule survives a Redis that lost its data, and rescheduling or unscheduling is a plain
 * UPDATE with nothing to chase in a queue. Of all the pollers that see a campaign due, the
 * one whose conditional UPDATE matches starts it; its fan-out is enqueued after the commit
 * (a failed enqueue is the watchdog's to repair, as for a send call).
 *
 * The From is checked again at that moment (a sender domain may have been removed since the
 * campaign was scheduled); a campaign that may no longer send goes back to draft, recorded in
 * the audit log, rather than out under an unverified domain.
 */
@Injectable()
export class CampaignSchedulePoller extends PeriodicService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly queue: CampaignSendQueue,
    private readonly senderDomains: SenderDomainsService,
    private readonly audit: AuditLog,
    private readonly events: CampaignEvents,
  ) {
    super('schedule tick', SCHEDULE_TICK_MS);
  }

  protected async pass(): Promise<void> {
    for (const due of await this.campaigns.dueCampaignsAcrossAccounts(SCHEDULE_BATCH)) {
      await this.fire(due.accountId, due.id, due.fromAddress);
    }
  }

  private async fire(accountId: AccountId, id: string, fromAddress: string): Promise<void> {
    const refusal = await this.senderDomains.assertCanSendFrom(accountId, fromAddress).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof ValidationFailedError) return error;
        throw error;
      },
    );
    if (refusal) {
      const dropped = await this.campaigns.transition(accountId, id, {
        from: ['scheduled'],
        to: 'draft',
        set: { sendAt: null },
      });
      if (!dropped) return;
      this.logger.warn(`campaign ${id}: its From may no longer send; back to draft`);
      await this.audit.record(accountId, {
        action: 'campaign.schedule_failed',
        metadata: { campaign_id: id, reason: refusal.details[0]?.code ?? 'validation_failed' },
      });
      return;
    }
    if (!(await this.campaigns.startScheduled(accountId, id))) return;
    this.logger.log(`campaign ${id}: scheduled send started`);
    await this.events.statusChanged(accountId, id, 'campaign.sending');
    await this.queue.enqueueFanout(accountId, id).catch((error: unknown) => {
      this.logger.error(
        `campaign ${id}: enqueue failed, the watchdog will start it: ${String(error)}`,
      );
    });
  }
}
