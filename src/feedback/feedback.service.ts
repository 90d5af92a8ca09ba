import { Injectable, Logger } from '@nestjs/common';
import { CampaignFeedbackCounters } from '../campaigns/core/campaign-feedback-counters';
import { ReputationGuard } from '../campaigns/core/reputation-guard';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import { SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { MailEvents } from '../stats/mail-events';
import { SuppressionList } from '../suppression/suppression-list';
import { feedbackMailEvent } from './feedback-events';
import { FeedbackOutcome, FeedbackReport } from '../message-refs/feedback-report';
import { messageKey } from '../message-refs/message-ref';
import { FeedbackRepository } from './feedback.repository';
import { SentMessageLookup } from './sent-message-lookup';

/**
 * Acts on what comes back after sending: bounce reports, complaints, unsubscribes (from
 * inbound mail, provider webhooks or the unsubscribe page). One transaction per report:
 * record it (the same event twice counts once), then, for the first report of its kind about
 * the message, update the subscriber (statistics, status), the campaign's counters and the
 * suppression list. A report about a message Herald cannot find changes nothing.
 */
@Injectable()
export class FeedbackService {
  private readonly logger = new Logger(FeedbackService.name);

  constructor(
    private readonly repository: FeedbackRepository,
    private readonly sent: SentMessageLookup,
    private readonly subscribers: SubscriberStatistics,
    private readonly suppressions: SuppressionList,
    private readonly campaignCounters: CampaignFeedbackCounters,
    private readonly mailEvents: MailEvents,
    private readonly guard: ReputationGuard,
  ) {}

  async apply(report: FeedbackReport): Promise<FeedbackOutcome> {
    const key = messageKey(report.message);
    let counted: { accountId: AccountId; campaignId: string } | undefined;
    const outcome = await this.repository.transaction(async (tx): Promise<FeedbackOutcome> => {
      await this.repository.lockMessage(tx, key);
      const message = await this.sent.locate(report.message, tx);
      if (!message) return 'unmatched';
      if (report.recipient && normalizeEmail(report.recipient) !== message.emailNormalized) {
        return 'unmatched';
      }
      const { accountId } = message;
      const first = !(await this.repository.seen(tx, accountId, key, report.kind));
      if (!(await this.repository.record(tx, message, report, key))) return 'duplicate';
      // A relay's 5xx at sending already counted this hard bounce and suppressed the address.
      if (!first || (report.kind === 'hard_bounce' && message.refusedAtSending)) {
        return 'repeated';
      }
      if (message.campaignId) {
        await this.campaignCounters.count(accountId, message.campaignId, report.kind, tx);
        counted = { accountId, campaignId: message.campaignId };
      }
      const reason = message.subscriberId
        ? (await this.subscribers.applyFeedback(accountId, message.subscriberId, report.kind, tx))
            ?.suppress
        : report.kind === 'soft_bounce'
          ? undefined // no subscriber, no streak: one soft bounce suppresses nobody
          : report.kind;
      if (reason) {
        await this.suppressions.suppress(accountId, message.emailNormalized, reason, tx);
      }
      await this.mailEvents.record(tx, accountId, [feedbackMailEvent(message, report)]);
      return 'applied';
    });
    // Once the count is committed: a complaint or hard bounce may take the campaign past a limit.
    if (counted) this.guard.afterFeedback(counted.accountId, counted.campaignId, report.kind);
    this.logger.log({ source: report.source, kind: report.kind, outcome }, 'delivery feedback');
    return outcome;
  }

  /**
   * A person unsubscribes through a link in a campaign message (the page's button, or an
   * RFC 8058 one-click POST). Counted on the campaign like a mailto unsubscribe; a link with
   * no campaign message on record (a test send) still unsubscribes the person.
   */
  async unsubscribeViaLink(ref: {
    accountId: AccountId;
    subscriberId: string;
    campaignId?: string;
  }): Promise<void> {
    if (ref.campaignId) {
      const message = {
        kind: 'campaign',
        campaignId: ref.campaignId,
        subscriberId: ref.subscriberId,
      } as const;
      const outcome = await this.apply({
        source: 'link',
        eventKey: messageKey(message),
        kind: 'unsubscribe',
        message,
      });
      if (outcome !== 'unmatched') return;
    }
    await this.repository.transaction(async (tx) => {
      const effect = await this.subscribers.applyFeedback(
        ref.accountId,
        ref.subscriberId,
        'unsubscribe',
        tx,
      );
      if (effect?.suppress) {
        await this.suppressions.suppress(
          ref.accountId,
          effect.emailNormalized,
          effect.suppress,
          tx,
        );
      }
      if (effect) {
        const unsubscribed = { subscriberId: ref.subscriberId, source: 'link' };
        await this.mailEvents.record(tx, ref.accountId, [
          { kind: 'unsubscribed', ...unsubscribed },
        ]);
      }
    });
  }
}
