import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { Campaign } from '../generated/prisma/client';
import { MailDeliveryError, MailTransport } from '../platform/mail/mail-transport';
import { QUEUES } from '../platform/queue/queue.module';
import { textFromHtml } from '../platform/mail/text-part';
import { AccountsService } from '../accounts/accounts.service';
import { SenderIdentity, withOptOut } from '../opt-out/opt-out-footer';
import { CompiledMessage, compileMessage } from '../templates/template-renderer';
import { CampaignLedgerRepository, Outcome, RecipientRow } from './campaign-ledger.repository';
import { skipReasonOf } from './mailability';
import { CampaignMessageBuilder } from './campaign-message';
import { DeliveryJob } from './campaign-send-queue';
import { OutcomeRecorder } from './outcome-recorder';

/** Recipients claimed by one conditional UPDATE. */
export const DELIVERY_CHUNK = 50;
/** Messages one job keeps in flight (the pool queues beyond its connections). */
export const DELIVERY_WINDOW = 100;
/** Delivery jobs one worker process runs at once. */
export const DELIVERY_CONCURRENCY = 4;
/** Outcomes are written in bulk: at most this many at once, at most this long after a 250. */
export const RECORD_BATCH = 100;
export const RECORD_DELAY_MS = 50;
const RECORD_ATTEMPTS = 6;

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
  lockDuration: 15_000,
  stalledInterval: 5_000,
  maxStalledCount: 10,
})
export class CampaignDeliveryProcessor extends WorkerHost {
  private readonly logger = new Logger(CampaignDeliveryProcessor.name);

  constructor(
    private readonly ledger: CampaignLedgerRepository,
    private readonly messages: CampaignMessageBuilder,
    private readonly transport: MailTransport,
    private readonly accounts: AccountsService,
  ) {
    super();
  }

  async process(job: Job<DeliveryJob>): Promise<void> {
    const { accountId, campaignId, batch } = job.data;
    const campaign = await this.ledger.findCampaign(accountId, campaignId);
    if (!campaign || campaign.status !== 'sending') return;
    const released = await this.ledger.releaseClaims(accountId, campaignId, batch);
    if (released > 0) {
      this.logger.warn(`campaign ${campaignId} batch ${batch}: resending ${released} unconfirmed`);
    }
    // HTML-only content gets a text part, converted once per job from the template itself
    // (merge fields survive the conversion), not once per recipient; each part without an
    // unsubscribe link of its own gets the footer.
    const compiled = compileMessage(
      withOptOut({
        subject: campaign.subject,
        html: campaign.html,
        text: campaign.text ?? (campaign.html === null ? null : await textFromHtml(campaign.html)),
      }),
    );
    const settings = await this.accounts.settings(accountId);
    const sender = { name: settings.name, postalAddress: settings.postal_address };
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const deferred: string[] = [];
    const recorder = new OutcomeRecorder(
      (outcomes) => this.recordWithRetry(accountId, campaignId, outcomes),
      { maxBatch: RECORD_BATCH, maxDelayMs: RECORD_DELAY_MS },
    );
    let inFlight = 0;
    let slotFreed: (() => void) | undefined;
    let exhausted = false;

    // Keep the window full: claim the next chunk as soon as there is room for it, and write
    // every outcome as soon as it is known, not when the whole chunk is done.
    while (!recorder.failed) {
      if (!exhausted && inFlight + DELIVERY_CHUNK <= DELIVERY_WINDOW) {
        const claimed = await this.ledger.claim(accountId, campaignId, batch, DELIVERY_CHUNK);
        if (claimed.length < DELIVERY_CHUNK) exhausted = true;
        const subscribers = await this.subscribersById(accountId, claimed);
        for (const subscriberId of claimed) {
          inFlight++;
          // deliverOne never rejects: every failure is an outcome.
          void this.deliverOne(
            campaign,
            compiled,
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
    await this.ledger.completeIfFinished(accountId, campaignId);
  }

  private async subscribersById(accountId: string, ids: string[]) {
    if (ids.length === 0) return new Map<string, RecipientRow>();
    const rows = await this.ledger.subscribers(accountId, ids);
    return new Map(rows.map((row) => [row.id, row]));
  }

  private async deliverOne(
    campaign: Campaign,
    compiled: CompiledMessage,
    sender: SenderIdentity,
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
      await this.transport.send(this.messages.build(campaign, compiled, subscriber, sender));
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
      this.logger.error(
        `campaign ${campaign.id}: message for ${subscriberId} failed: ${String(error)}`,
      );
      return { subscriberId, kind: 'failed', hardBounce: false };
    }
  }

  /**
   * The messages of this chunk are out: losing their outcomes would resend them. So a
   * failing write (a deadlock, a blip of the database) is retried before giving up.
   */
  private async recordWithRetry(accountId: string, campaignId: string, outcomes: Outcome[]) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ledger.record(accountId, campaignId, outcomes);
        return;
      } catch (error) {
        if (attempt >= RECORD_ATTEMPTS) throw error;
        this.logger.warn(`recording outcomes failed (attempt ${attempt}): ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }
}
