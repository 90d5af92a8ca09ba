import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { SenderDomainsService } from '../domains/sender-domains.service';
import { VerpAddresses } from '../message-refs/verp-address';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { parseAccountId } from '../platform/database/account-id';
import { retryTransient } from '../platform/database/retry-transient';
import {
  DeliveryReceipt,
  MailDeliveryError,
  MailTransport,
  OutgoingMessage,
} from '../platform/mail/mail-transport';
import { SendSlots } from '../platform/mail/send-slots';
import { HeraldMetrics } from '../platform/metrics/herald-metrics';
import { QueueProcessor, workerOptions } from '../platform/queue/queue-processor';
import { QUEUES } from '../platform/queue/queue.module';
import { rawMessageId } from '../platform/mail/raw-headers';
import { RECORD_ATTEMPTS, RECORD_RETRY_MAX_MS } from '../platform/settings';
import { TRANSACTIONAL_CONCURRENCY } from './transactional.settings';
import { SuppressionList } from '../suppression/suppression-list';
import { textFromHtml } from '../templates/template-renderer';
import { TransactionalClaim } from './transactional-claim';
import { recipientStorageKey } from './transactional-erasure.participant';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';
import { TransactionalOutcomes } from './transactional-outcomes';
import { TransactionalJob } from './transactional-queue';

const MAX_ERROR_LENGTH = 500;

/** What the relay made of a message: its receipt (none if abandoned at its end), or why not. */
type SendAttempt = { receipt: DeliveryReceipt | undefined } | { error: unknown };
/** A job waiting for another worker's lease tries just after it ends (clock granularity). */
const LEASE_TAKEOVER_SLACK_MS = 250;

/**
 * Sends one transactional message per job. The job holds only ids; the row, claimed with a
 * conditional UPDATE under a renewed lease, holds the content, and the claim's number fences
 * every later write (see TransactionalClaim). Permanent refusals (SMTP 5xx) mark it failed;
 * temporary ones defer it on the row and park the job in BullMQ's delayed set until the next
 * try, with backoff, until the retry horizon (SMTP_RETRY_*) has passed.
 */
// A dead worker's job is noticed within about 20 s (workerOptions), to wait in the delayed set
// for the claim's lease to end and take the message over then.
@Processor(QUEUES.transactional, workerOptions(TRANSACTIONAL_CONCURRENCY))
export class TransactionalSendProcessor extends QueueProcessor {
  constructor(
    private readonly messages: TransactionalMessagesRepository,
    private readonly outcomes: TransactionalOutcomes,
    private readonly mail: MailTransport,
    private readonly slots: SendSlots,
    private readonly verp: VerpAddresses,
    private readonly senderDomains: SenderDomainsService,
    private readonly suppressions: SuppressionList,
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly metrics: HeraldMetrics,
  ) {
    super('the transactional worker');
  }

  async process(job: Job<TransactionalJob>, token?: string): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    const claim = await TransactionalClaim.take(this.messages, accountId, job.data.messageId);
    if (!claim) {
      await this.waitForLease(job, token);
      // Sent, failed or erased: nothing to do.
      return;
    }
    try {
      await this.deliver(job, token, claim);
    } finally {
      claim.end();
    }
  }

  /**
   * The message is claimed by someone else. This job only runs again while a claim exists when
   * BullMQ judged its first run stalled: its worker died (or froze) mid-send. The job then
   * waits in the delayed set until the claim's lease ends and tries to take it over at once,
   * instead of leaving it to the sweep; if the first worker was alive after all, it renewed
   * its lease and the next try waits again, or it finished and the try finds nothing to do.
   */
  private async waitForLease(job: Job<TransactionalJob>, token: string | undefined) {
    const accountId = parseAccountId(job.data.accountId);
    const remainingMs = await this.messages.leaseRemainingMs(accountId, job.data.messageId);
    if (remainingMs === undefined) return;
    await job.moveToDelayed(Date.now() + Math.max(0, remainingMs) + LEASE_TAKEOVER_SLACK_MS, token);
    throw new DelayedError();
  }

  private async deliver(
    job: Job<TransactionalJob>,
    token: string | undefined,
    claim: TransactionalClaim,
  ) {
    const message = claim.message;
    const to = message.toAddress!;
    let outgoing: OutgoingMessage;
    try {
      // The address may have bounced, complained or unsubscribed since the send was accepted.
      const listedAs = await this.suppressions.listedReason(message.accountId, to);
      if (listedAs !== undefined) {
        const reason = suppressedSinceAccepted(listedAs);
        await this.record(() => this.outcomes.failed(message, reason, undefined, message.attempts));
        return;
      }
      outgoing = await this.compose(message);
    } catch (error) {
      // Nothing went out: the claim goes back now (if the database lets us) for the job's retry,
      // rather than lapsing a minute later.
      await this.messages.release(message, describe(error, to)).catch(() => undefined);
      throw error;
    }
    // Through the process's send slots, like campaign messages: its end waits for an
    // unrecorded slot, held until the outcome below is written, so the worker's bound of one
    // unknown message per connection holds for both kinds of send together. The claim is
    // judged by this process's clock when a connection is free and again before the end: a
    // worker frozen or cut off from PostgreSQL for longer than its lease must not send what
    // the sweep may have handed to another worker.
    let recorded = true;
    const attempt = await this.slots.send<SendAttempt>({
      // One person waits for this message: it goes before a campaign's waiting messages.
      lane: 'urgent',
      holds: () => claim.holdsToSend(),
      send: (mayFinish) =>
        this.mail.sendWhen(outgoing, mayFinish).then(
          (receipt) => ({ receipt }),
          (error: unknown) => ({ error }),
        ),
      record: async (sent) => {
        if (!('receipt' in sent) || sent.receipt === undefined) return;
        const { messageId, response } = sent.receipt;
        recorded = await this.record(() =>
          this.outcomes.sent(message, messageId, normalizeEmail(to), response),
        );
      },
    });
    if (attempt === undefined || ('receipt' in attempt && attempt.receipt === undefined)) {
      this.logger.warn({ messageId: message.id }, 'claim lapsed before sending; left to the sweep');
      return;
    }
    if ('error' in attempt) {
      await this.recordFailure(job, token, message, attempt.error);
      return;
    }
    this.metrics.message('transactional', 'sent');
    if (!recorded) {
      this.logger.warn(
        { messageId: message.id },
        'sent after its claim lapsed and was taken over: it may have gone twice',
      );
    }
  }

  private async compose(message: ClaimedMessage): Promise<OutgoingMessage> {
    const sender = await this.senderDomains.signingIdentity(message.accountId, message.fromAddress);
    return {
      from: message.fromAddress,
      to: message.toAddress!,
      subject: message.subject ?? '',
      html: message.html,
      // Every message has a text part: generated from the HTML when the author gave none.
      text: message.text ?? (message.html ? await textFromHtml(message.html) : null),
      // A submitted message goes out as its client wrote it, under its own Message-ID.
      raw: message.mime ? Buffer.from(message.mime) : undefined,
      messageId: (message.mime && rawMessageId(Buffer.from(message.mime))) || message.id,
      storageKey: recipientStorageKey(message.recipientHash),
      dkim: sender?.dkim,
      // Bounce reports come back here, naming this message by its signed token.
      envelopeFrom: this.verp.returnPath({ kind: 'transactional', messageId: message.id }, sender),
    };
  }

  private async recordFailure(
    job: Job<TransactionalJob>,
    token: string | undefined,
    message: ClaimedMessage,
    error: unknown,
  ) {
    const reason = describe(error, message.toAddress!);
    const emailNormalized = normalizeEmail(message.toAddress!);
    const epoch = message.attempts;
    if (error instanceof MailDeliveryError) {
      // Only the relay's refusals are bounces: hard for a 5xx, soft once its 4xx outlasted
      // the retry horizon.
      if (error.permanent || this.pastHorizon(message)) {
        this.metrics.message('transactional', 'failed');
        const bounce = { hard: error.permanent, emailNormalized, smtpCode: error.responseCode };
        await this.record(() => this.outcomes.failed(message, reason, bounce, epoch));
        return;
      }
      this.metrics.message('transactional', 'deferred');
      const delayMs = await this.record(() =>
        this.outcomes.deferred(message, reason, error.responseCode, this.config.smtpRetry),
      );
      // Erased meanwhile (it has ended), or taken over by another worker: not ours to retry.
      if (delayMs === undefined) return;
      this.logger.warn(
        { messageId: message.id, attempt: epoch, retryInSeconds: Math.round(delayMs / 1000) },
        'relay refused for now: deferred',
      );
      await job.moveToDelayed(Date.now() + delayMs, token);
      throw new DelayedError();
    }
    // An error of ours (the message could not be built, signed or stored): BullMQ's attempts.
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (lastAttempt) {
      this.metrics.message('transactional', 'failed');
      await this.record(() => this.outcomes.failed(message, reason, undefined, epoch));
      return;
    }
    await this.messages.release(message, reason);
    this.logger.warn({ messageId: message.id, attempt: job.attemptsMade + 1 }, 'send will retry');
    // Rethrown so BullMQ schedules the retry with backoff.
    throw error;
  }

  /** Whether the relay has been refusing this message for longer than the retry horizon. */
  private pastHorizon(message: ClaimedMessage): boolean {
    if (!message.deferredSince || !message.claimedAt) return false;
    const refusingMs = message.claimedAt.getTime() - message.deferredSince.getTime();
    return refusingMs >= this.config.smtpRetry.horizonSeconds * 1000;
  }

  /** An outcome write: it must land, PostgreSQL away or not (see retryTransient). */
  private record<T>(write: () => Promise<T>): Promise<T> {
    return retryTransient(write, {
      attempts: RECORD_ATTEMPTS,
      maxWaitMs: RECORD_RETRY_MAX_MS,
      onRetry: (error, waitMs) =>
        this.logger.warn(`recording an outcome failed, retrying in ${waitMs} ms: ${String(error)}`),
    });
  }
}

function suppressedSinceAccepted(reason: string): string {
  return `Not sent: the recipient's address was put on the suppression list (${reason}) after the message was accepted.`;
}

/** The failure as the API shows it: the relay's words, without the recipient's address. */
function describe(error: unknown, to: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split(to).join('<recipient>').slice(0, MAX_ERROR_LENGTH);
}
