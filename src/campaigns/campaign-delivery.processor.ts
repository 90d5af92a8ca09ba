import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { Campaign, Subscriber } from '../generated/prisma/client';
import { MailDeliveryError, MailTransport } from '../platform/mail/mail-transport';
import { QUEUES } from '../platform/queue/queue.module';
import { CompiledMessage, compileMessage } from '../templates/template-renderer';
import { CampaignLedgerRepository, NOT_MAILABLE, Outcome } from './campaign-ledger.repository';
import { CampaignMessageBuilder } from './campaign-message';
import { DeliveryJob } from './campaign-send-queue';

/** Recipients claimed, sent and recorded together: the unit of the bulk statistics writes. */
export const DELIVERY_CHUNK = 50;
/** Delivery jobs one worker process runs at once; with the chunk, keeps the SMTP pool busy. */
export const DELIVERY_CONCURRENCY = 4;
const RECORD_ATTEMPTS = 6;

/**
 * Delivers one batch of a campaign: claims pending ledger rows a chunk at a time (pending →
 * sending, a conditional UPDATE, so no two workers send to one row), renders each message
 * with the template compiled once per job, sends through the pooled transport, and records
 * the chunk's outcomes in bulk. SMTP 4xx answers leave the recipient for a retry of the job
 * with backoff; 5xx fails it and marks the subscriber bounced.
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
    const compiled = compileMessage({
      subject: campaign.subject,
      html: campaign.html,
      text: campaign.text,
    });
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const deferred: string[] = [];

    for (;;) {
      const claimed = await this.ledger.claim(accountId, campaignId, batch, DELIVERY_CHUNK);
      if (claimed.length === 0) break;
      const outcomes = await this.deliverChunk(campaign, compiled, claimed, lastAttempt);
      await this.recordWithRetry(accountId, campaignId, outcomes);
      for (const outcome of outcomes) {
        if (outcome.kind === 'deferred') deferred.push(outcome.subscriberId);
      }
    }

    if (deferred.length > 0) {
      await this.ledger.releaseDeferred(accountId, campaignId, deferred);
      // Throwing hands the batch back to BullMQ, which retries it with exponential backoff;
      // the retry claims only the recipients still pending.
      throw new Error(`${deferred.length} recipients deferred by the SMTP server; will retry`);
    }
    await this.ledger.completeIfFinished(accountId, campaignId);
  }

  private async deliverChunk(
    campaign: Campaign,
    compiled: CompiledMessage,
    claimed: string[],
    lastAttempt: boolean,
  ): Promise<Outcome[]> {
    const subscribers = new Map(
      (await this.ledger.subscribers(campaign.accountId, claimed)).map((s) => [s.id, s]),
    );
    return Promise.all(
      claimed.map((subscriberId) =>
        this.deliverOne(
          campaign,
          compiled,
          subscriberId,
          subscribers.get(subscriberId),
          lastAttempt,
        ),
      ),
    );
  }

  private async deliverOne(
    campaign: Campaign,
    compiled: CompiledMessage,
    subscriberId: string,
    subscriber: Subscriber | undefined,
    lastAttempt: boolean,
  ): Promise<Outcome> {
    // Checked at delivery time, not only at the snapshot: someone erased (their row is gone)
    // or who unsubscribed or bounced since is skipped silently.
    if (!subscriber) return { subscriberId, kind: 'skipped', reason: 'erased' };
    if ((NOT_MAILABLE as readonly string[]).includes(subscriber.status)) {
      return { subscriberId, kind: 'skipped', reason: subscriber.status as 'bounced' };
    }
    try {
      await this.transport.send(this.messages.build(campaign, compiled, subscriber));
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
