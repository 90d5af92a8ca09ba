import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { AccountsService } from '../accounts/accounts.service';
import { SenderDomainsService } from '../domains/sender-domains.service';
import { SenderIdentity } from '../domains/sender-identity';
import { Campaign, Subscriber } from '../generated/prisma/client';
import { FooterSender, withOptOut } from '../opt-out/opt-out-footer';
import { AccountId, parseAccountId } from '../platform/database/account-id';
import { ValidationFailedError } from '../platform/errors/api-errors';
import {
  MailDeliveryError,
  MailTransport,
  withoutAddresses,
} from '../platform/mail/mail-transport';
import { QUEUES } from '../platform/queue/queue.module';
import { reportRedisError } from '../platform/redis/redis-outage-log';
import {
  CAMPAIGN_JOB_LOCK_MS,
  CAMPAIGN_MAX_STALLED,
  CAMPAIGN_STALLED_CHECK_MS,
  DELIVERY_CHUNK,
  DELIVERY_CONCURRENCY,
  DELIVERY_WINDOW,
  RECORD_ATTEMPTS,
  RECORD_BATCH,
  RECORD_DELAY_MS,
} from '../platform/settings';
import { SubscribersService } from '../subscribers/subscribers.service';
import { SuppressionList } from '../suppression/suppression-list';
import {
  CompiledMessage,
  compileMessage,
  TemplateRenderError,
  textFromHtml,
  unrenderable,
} from '../templates/template-renderer';
import { CampaignDeliveryGates } from './campaign-delivery-gate';
import { CampaignEvents } from './campaign-events';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { skipReasonOf } from './mailability';
import { CampaignMessageBuilder } from './campaign-message';
import { CampaignOutcomeWriter } from './campaign-outcome-writer';
import { DeliveryJob } from './campaign-send-queue';
import { CampaignsRepository } from './campaigns.repository';
import { OutcomeRecorder } from './outcome-recorder';
import { Outcome } from './recipient-outcome';

/** A claimed recipient's row, and whether the address is suppressed right now. */
type RecipientRow = Subscriber & { suppressed: boolean };

/**
 * Delivers one batch of a campaign: claims pending ledger rows a chunk at a time (pending →
 * sending, a conditional UPDATE, so no two workers send to one row), renders each message
 * with the template compiled once per job, sends through the pooled transport, and records
 * outcomes in small bulk writes as they arrive (ledger, subscriber statistics, campaign
 * counters). SMTP 4xx answers leave the recipient for a retry of the job with backoff; 5xx
 * fails it and marks the subscriber bounced.
 */
@Processor(QUEUES.campaignDelivery, {
  concurrency: DELIVERY_CONCURRENCY,
  lockDuration: CAMPAIGN_JOB_LOCK_MS,
  stalledInterval: CAMPAIGN_STALLED_CHECK_MS,
  maxStalledCount: CAMPAIGN_MAX_STALLED,
})
export class CampaignDeliveryProcessor extends WorkerHost {
  private readonly logger = new Logger(CampaignDeliveryProcessor.name);

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly outcomes: CampaignOutcomeWriter,
    private readonly subscribers: SubscribersService,
    private readonly messages: CampaignMessageBuilder,
    private readonly transport: MailTransport,
    private readonly senderDomains: SenderDomainsService,
    private readonly accounts: AccountsService,
    private readonly suppressions: SuppressionList,
    private readonly gates: CampaignDeliveryGates,
    private readonly events: CampaignEvents,
  ) {
    super();
  }

  /** The worker's own errors (its Redis connections): reported once per interval. */
  @OnWorkerEvent('error')
  onError(error: Error): void {
    reportRedisError('the campaign delivery worker', error);
  }

  async process(job: Job<DeliveryJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    const { campaignId, batch } = job.data;
    const campaign = await this.campaigns.findById(accountId, campaignId);
    if (!campaign || campaign.status !== 'sending') return;
    const released = await this.ledger.releaseClaims(accountId, campaignId, batch);
    if (released > 0) {
      this.logger.warn(`campaign ${campaignId} batch ${batch}: resending ${released} unconfirmed`);
    }
    // HTML-only content gets a text part, converted once per job from the template itself
    // (merge fields survive the conversion), not once per recipient; each part without an
    // unsubscribe link of its own gets the footer. A template that no longer compiles fails
    // each message with the reason (logged), not the job: retrying it would not help, and
    // would leave the campaign sending.
    const compiled = await compileMessage(
      withOptOut({
        subject: campaign.subject,
        html: campaign.html,
        text: campaign.text ?? (campaign.html === null ? null : await textFromHtml(campaign.html)),
      }),
    ).catch((error: unknown) => {
      if (!(error instanceof ValidationFailedError)) throw error;
      return unrenderable(error);
    });
    const settings = await this.accounts.settings(accountId);
    const footer: FooterSender = { name: settings.name, postalAddress: settings.postal_address };
    // One From per campaign: its signing key is looked up once per job.
    const sender = await this.senderDomains.signingIdentity(accountId, campaign.fromAddress);
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const deferred: string[] = [];
    const recorder = new OutcomeRecorder(
      (outcomes) => this.recordWithRetry(accountId, campaignId, outcomes),
      { maxBatch: RECORD_BATCH, maxDelayMs: RECORD_DELAY_MS },
    );
    let inFlight = 0;
    let slotFreed: (() => void) | undefined;
    let exhausted = false;
    const gate = this.gates.open(accountId, campaign);

    // Keep the window full: claim the next chunk as soon as there is room for it, and write
    // every outcome as soon as it is known, not when the whole chunk is done.
    while (!recorder.failed) {
      if (!exhausted && inFlight + DELIVERY_CHUNK <= DELIVERY_WINDOW) {
        // Paused or cancelled: claim no more (what is in flight finishes); throttled: only
        // as many as the send rates allow now.
        const admitted = await gate.admit(DELIVERY_CHUNK);
        const claimed =
          admitted > 0 ? await this.ledger.claim(accountId, campaignId, batch, admitted) : [];
        if (admitted === 0 || claimed.length < admitted) exhausted = true;
        const subscribers = await this.subscribersById(accountId, claimed);
        for (const subscriberId of claimed) {
          inFlight++;
          // deliverOne never rejects: every failure is an outcome.
          void this.deliverOne(
            campaign,
            compiled,
            footer,
            sender,
            subscriberId,
            subscribers.get(subscriberId),
            lastAttempt,
          ).then((outcome) => {
            if (outcome.kind === 'deferred') deferred.push(outcome.subscriberId);
            recorder.add(outcome);
            inFlight--;
            slotFreed?.();
          });
        }
        continue;
      }
      if (inFlight === 0) break;
      await new Promise<void>((resolve) => (slotFreed = resolve));
      slotFreed = undefined;
    }
    while (inFlight > 0) {
      await new Promise<void>((resolve) => (slotFreed = resolve));
      slotFreed = undefined;
    }
    await recorder.close();

    if (deferred.length > 0) {
      await this.ledger.releaseDeferred(accountId, campaignId, deferred);
      // Throwing hands the batch back to BullMQ, which retries it with exponential backoff;
      // the retry claims only the recipients still pending.
      throw new Error(`${deferred.length} recipients deferred by the SMTP server; will retry`);
    }
    if (await this.campaigns.completeIfFinished(accountId, campaignId)) {
      await this.events.statusChanged(accountId, campaignId, 'campaign.sent');
    }
  }

  /** The claimed recipients' rows, each with whether its address is suppressed right now. */
  private async subscribersById(accountId: AccountId, ids: string[]) {
    if (ids.length === 0) return new Map<string, RecipientRow>();
    const rows = await this.subscribers.findRows(accountId, ids);
    const suppressed = await this.suppressions.suppressedAmong(
      accountId,
      rows.map((row) => row.emailNormalized),
    );
    return new Map(
      rows.map((row) => [row.id, { ...row, suppressed: suppressed.has(row.emailNormalized) }]),
    );
  }

  private async deliverOne(
    campaign: Campaign,
    compiled: CompiledMessage,
    footer: FooterSender,
    sender: SenderIdentity | undefined,
    subscriberId: string,
    subscriber: RecipientRow | undefined,
    lastAttempt: boolean,
  ): Promise<Outcome> {
    // Checked at delivery time, not only at the snapshot: someone erased (their row is gone)
    // or who unsubscribed, bounced, complained or was suppressed since is skipped silently.
    if (!subscriber) return { subscriberId, kind: 'skipped', reason: 'erased' };
    const skip = skipReasonOf(subscriber.status, subscriber.suppressed);
    if (skip) return { subscriberId, kind: 'skipped', reason: skip };
    try {
      await this.transport.send(
        await this.messages.build(campaign, compiled, subscriber, footer, sender),
      );
      return { subscriberId, kind: 'delivered' };
    } catch (error) {
      if (error instanceof MailDeliveryError) {
        if (error.permanent) {
          return { subscriberId, kind: 'failed', smtpCode: error.responseCode, hardBounce: true };
        }
        if (!lastAttempt) return { subscriberId, kind: 'deferred', smtpCode: error.responseCode };
        return { subscriberId, kind: 'failed', smtpCode: error.responseCode, hardBounce: false };
      }
      // A message that cannot even be built (a merge value the template chokes on) will not
      // build on a retry either.
      const reason = failureReason(error);
      this.logger.error(`campaign ${campaign.id}: message for ${subscriberId} failed: ${reason}`);
      return { subscriberId, kind: 'failed', hardBounce: false, reason };
    }
  }

  /**
   * The messages of this chunk are out: losing their outcomes would resend them. So a
   * failing write (a deadlock, a blip of the database) is retried before giving up.
   */
  private async recordWithRetry(accountId: AccountId, campaignId: string, outcomes: Outcome[]) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.outcomes.record(accountId, campaignId, outcomes);
        return;
      } catch (error) {
        if (attempt >= RECORD_ATTEMPTS) throw error;
        this.logger.warn(`recording outcomes failed (attempt ${attempt}): ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }
}

/** Longest failure reason kept on a ledger row. */
const MAX_REASON_LENGTH = 500;

/**
 * The reason kept on the recipient's row (and logged) for a message that could not be built.
 * A render failure is the template engine's account of the template (its field and what went
 * wrong), not of the subscriber's data; addresses are cut out all the same, since the row
 * outlives an erasure of the person. Anything else is an error of ours: only its kind is kept.
 */
export function failureReason(error: unknown): string {
  const text =
    error instanceof TemplateRenderError
      ? error.message
      : `the message could not be built (${error instanceof Error ? error.name : 'unknown error'})`;
  return withoutAddresses(text).slice(0, MAX_REASON_LENGTH);
}
