import { Injectable, Logger } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log';
import { Principal } from '../../auth/principal';
import { Campaign } from '../../generated/prisma/client';
import { newId } from '../../platform/crypto/ids';
import {
  InsufficientScopeError,
  NotFoundError,
  ValidationFailedError,
} from '../../platform/errors/api-errors';
import { withinDeadline } from '../../platform/queue/within-deadline';
import { ENQUEUE_DEADLINE_MS } from '../../platform/settings';
import { RESUME_RECHECK_MS } from '../core/campaigns.settings';
import { CampaignStateConflictError } from '../core/campaign-errors';
import { parseIsoDate } from '../../platform/validation/calendar-date';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { MessageContent } from '../../templates/template-renderer';
import { CampaignResponse } from '../definition/campaign.presenter';
import { CampaignCancellation } from '../core/campaign-cancellation';
import { CampaignRendering } from '../content/campaign-rendering';
import { CampaignSendQueue } from '../core/campaign-send-queue';
import { CampaignTestSender, TestSendResult } from './campaign-test-sender';
import { CampaignsRepository, Transition } from '../core/campaigns.repository';
import { CampaignsService } from '../definition/campaigns.service';
import { CampaignEvents } from '../core/campaign-events';
import { CampaignHalts } from '../core/campaign-halts';

const NAME_LIMIT = 255;
const COPY_SUFFIX = ' (copy)';

/**
 * What happens to a campaign besides its definition and its send: scheduling, pausing,
 * resuming, cancelling, test sends, duplicates and the preview. Every state change is one
 * conditional UPDATE (CampaignsRepository.transition): of concurrent calls the first wins
 * and the others get 409, as for the send. The workers notice: the schedule poller starts
 * due campaigns; delivery jobs re-read the status between claims (CampaignDeliveryGates).
 */
@Injectable()
export class CampaignOperationsService {
  private readonly logger = new Logger(CampaignOperationsService.name);

  constructor(
    private readonly campaignsService: CampaignsService,
    private readonly campaigns: CampaignsRepository,
    private readonly cancellation: CampaignCancellation,
    private readonly queue: CampaignSendQueue,
    private readonly testSender: CampaignTestSender,
    private readonly rendering: CampaignRendering,
    private readonly subscribers: SubscribersService,
    private readonly audit: AuditLog,
    private readonly events: CampaignEvents,
    private readonly halts: CampaignHalts,
  ) {}

  /**
   * Schedules a draft (or moves a scheduled campaign to another time). The campaign is
   * checked as a send would check it, so a schedule that is accepted can start.
   */
  async schedule(caller: Principal, id: string, sendAt: string): Promise<CampaignResponse> {
    const current = await this.campaignsService.findRow(caller.accountId, id);
    if (current.status !== 'draft' && current.status !== 'scheduled') {
      throw new CampaignStateConflictError('scheduled', current.status);
    }
    const at = sendTime(sendAt);
    await this.campaignsService.assertSendable(caller.accountId, current);
    const scheduled = await this.move(caller, current, 'scheduled', {
      from: ['draft', 'scheduled'],
      to: 'scheduled',
      set: { sendAt: at },
    });
    await this.audit.recordBy(caller, {
      action: 'campaign.scheduled',
      metadata: { campaign_id: id, send_at: at.toISOString() },
    });
    return scheduled;
  }

  async unschedule(caller: Principal, id: string): Promise<CampaignResponse> {
    const current = await this.campaignsService.findRow(caller.accountId, id);
    const draft = await this.move(caller, current, 'unscheduled', {
      from: ['scheduled'],
      to: 'draft',
      set: { sendAt: null },
    });
    await this.audit.recordBy(caller, {
      action: 'campaign.unscheduled',
      metadata: { campaign_id: id },
    });
    return draft;
  }

  /**
   * Stops the send: this process's delivery runs halt at once, the others' within
   * SEND_STATUS_CHECK_MS; messages a relay is taking finish and are recorded, the rest stay
   * pending (or claimed, for the run after a resume). A person's pause has no `paused_reason`
   * (the reputation guard's pauses do).
   */
  async pause(caller: Principal, id: string): Promise<CampaignResponse> {
    const current = await this.campaignsService.findRow(caller.accountId, id);
    const paused = await this.move(caller, current, 'paused', {
      from: ['sending'],
      to: 'paused',
      set: { pausedReason: null },
    });
    this.halts.halt(id);
    await this.audit.recordBy(caller, { action: 'campaign.paused', metadata: { campaign_id: id } });
    await this.events.statusChanged(caller.accountId, id, 'campaign.paused');
    return paused;
  }

  /**
   * Sending again, from where the ledger stands: the fan-out runs again (it re-enqueues the
   * batches with pending recipients and finishes reading the audience), now and once more a
   * few seconds later for batches whose job was still finishing its last messages.
   */
  async resume(caller: Principal, id: string): Promise<CampaignResponse> {
    const current = await this.campaignsService.findRow(caller.accountId, id);
    if (current.status !== 'paused')
      throw new CampaignStateConflictError('resumed', current.status);
    // The watchdog measures idleness from here, not from the pause, and the reputation guard
    // judges what is sent from here (CampaignsRepository.resume).
    const row = await this.campaigns.resume(caller.accountId, id);
    if (!row) {
      const now = await this.campaigns.findVisible(caller.accountId, id);
      if (!now) throw new NotFoundError('campaign');
      throw new CampaignStateConflictError('resumed', now.status);
    }
    const resumed = this.campaignsService.present(row);
    await this.audit.recordBy(caller, {
      action: 'campaign.resumed',
      metadata: { campaign_id: id },
    });
    const { accountId } = caller;
    try {
      await withinDeadline(
        Promise.all([
          this.queue.enqueueFanout(accountId, id),
          this.queue.enqueueFanoutLater(accountId, id, RESUME_RECHECK_MS),
        ]),
        ENQUEUE_DEADLINE_MS,
        `campaign ${id}'s fan-out job`,
      );
    } catch (error) {
      this.logger.error(
        `campaign ${id}: enqueue failed, the watchdog will resume it: ${String(error)}`,
      );
    }
    return resumed;
  }

  /**
   * Cancels for good: pending recipients are never sent (counted as `cancelled`), messages
   * in flight finish and are recorded.
   */
  async cancel(caller: Principal, id: string): Promise<CampaignResponse> {
    await this.campaignsService.findRow(caller.accountId, id);
    const cancelled = await this.cancellation.cancel(caller.accountId, id);
    if (cancelled === undefined) {
      const now = await this.campaignsService.findRow(caller.accountId, id);
      throw new CampaignStateConflictError('cancelled', now.status);
    }
    await this.audit.recordBy(caller, {
      action: 'campaign.cancelled',
      metadata: { campaign_id: id, cancelled_recipients: cancelled },
    });
    return this.campaignsService.present(await this.campaignsService.findRow(caller.accountId, id));
  }

  async test(caller: Principal, id: string, emails: string[]): Promise<TestSendResult[]> {
    const campaign = await this.campaignsService.findRow(caller.accountId, id);
    const results = await this.testSender.send(caller, campaign, emails);
    await this.audit.recordBy(caller, {
      action: 'campaign.test_sent',
      metadata: {
        campaign_id: id,
        sent: results.filter((result) => result.status === 'sent').length,
        failed: results.filter((result) => result.status === 'failed').length,
      },
    });
    return results;
  }

  /**
   * A new draft with the same content, audience, sender and pace, whatever state the
   * original is in. A template-based campaign stays template-based (it takes the template as
   * it is now); one whose template is gone keeps the content it was sent with.
   */
  async duplicate(caller: Principal, id: string): Promise<CampaignResponse> {
    const source = await this.campaignsService.findRow(caller.accountId, id);
    const fromTemplate = source.templateId !== null;
    const copy = await this.campaigns.create(caller.accountId, newId(), {
      name: copyName(source.name),
      subject: source.subject,
      fromAddress: source.fromAddress,
      templateId: source.templateId,
      segmentId: source.segmentId,
      html: fromTemplate ? null : source.html,
      text: fromTemplate ? null : source.text,
      ratePerMinute: source.ratePerMinute,
    });
    await this.audit.recordBy(caller, {
      action: 'campaign.duplicated',
      metadata: { campaign_id: copy.id, source_id: id },
    });
    return this.campaignsService.present(copy);
  }

  /**
   * The campaign rendered as a subscriber will get it (the dashboard's preview), with that
   * subscriber's data or, without one, with no subscriber data at all.
   */
  async preview(caller: Principal, id: string, subscriberId?: string): Promise<MessageContent> {
    const campaign = await this.campaignsService.findRow(caller.accountId, id);
    if (subscriberId && !caller.scopes.includes('subscribers:read')) {
      throw new InsufficientScopeError('subscribers:read');
    }
    const subscriber = subscriberId
      ? await this.subscribers.findRow(caller.accountId, subscriberId)
      : null;
    if (subscriberId && !subscriber) {
      throw new ValidationFailedError([
        {
          field: 'subscriber_id',
          code: 'not_found',
          message: 'No such subscriber in this account.',
        },
      ]);
    }
    const render = await this.rendering.compile(caller.accountId, campaign);
    return render.renderFor(subscriber ?? { email: '' });
  }

  /** One conditional transition, or 409 naming the status that refused it (404 if deleted). */
  private async move(
    caller: Principal,
    current: Campaign,
    operation: string,
    transition: Transition,
  ): Promise<CampaignResponse> {
    if (!transition.from.includes(current.status)) {
      throw new CampaignStateConflictError(operation, current.status);
    }
    const moved = await this.campaigns.transition(caller.accountId, current.id, transition);
    if (moved) return this.campaignsService.present(moved);
    const now = await this.campaigns.findVisible(caller.accountId, current.id);
    if (!now) throw new NotFoundError('campaign');
    throw new CampaignStateConflictError(operation, now.status);
  }
}

/** send_at as an instant: in the future and at most a year away (422 on send_at otherwise). */
function sendTime(text: string): Date {
  const parsed = parseIsoDate(text);
  const now = Date.now();
  const yearAhead = new Date(now);
  yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1);
  const refuse = (message: string) =>
    new ValidationFailedError([{ field: 'send_at', code: 'out_of_range', message }]);
  if (!parsed) {
    throw new ValidationFailedError([
      { field: 'send_at', code: 'invalid_format', message: 'send_at must be a date-time' },
    ]);
  }
  if (parsed.instant.getTime() <= now) throw refuse('send_at is in the past.');
  if (parsed.instant > yearAhead) {
    throw refuse('send_at is more than a year away.');
  }
  return parsed.instant;
}

/** "Name (copy)", within the name's length limit. */
function copyName(name: string): string {
  return name.slice(0, NAME_LIMIT - COPY_SUFFIX.length) + COPY_SUFFIX;
}
