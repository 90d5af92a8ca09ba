import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnModuleDestroy } from '@nestjs/common';
import type { Job } from 'bullmq';
import { SenderDomainsService } from '../domains/sender-domains.service';
import { VerpAddresses } from '../feedback/verp-address';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { parseAccountId } from '../platform/database/account-id';
import { MailDeliveryError, MailTransport } from '../platform/mail/mail-transport';
import { QUEUES } from '../platform/queue/queue.module';
import { reportRedisError } from '../platform/redis/redis-outage-log';
import { TRANSACTIONAL_CLAIM_LEASE_MS, TRANSACTIONAL_CONCURRENCY } from '../platform/settings';
import { SuppressionList } from '../suppression/suppression-list';
import { textFromHtml } from '../templates/template-renderer';
import { recipientStorageKey } from './transactional-erasure.participant';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';
import { TransactionalOutcomes } from './transactional-outcomes';
import { TransactionalJob } from './transactional-queue';

const MAX_ERROR_LENGTH = 500;
/** How long shutdown waits to learn whether Redis answers before forcing the worker closed. */
const REDIS_PROBE_MS = 1000;

/**
 * Sends one transactional message per job. The job holds only ids; the row, claimed with a
 * conditional UPDATE, holds the content. Permanent refusals (SMTP 5xx) and the last attempt
 * mark it failed; temporary ones give it back and let BullMQ retry with backoff.
 */
@Processor(QUEUES.transactional, { concurrency: TRANSACTIONAL_CONCURRENCY })
export class TransactionalSendProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(TransactionalSendProcessor.name);

  constructor(
    private readonly messages: TransactionalMessagesRepository,
    private readonly outcomes: TransactionalOutcomes,
    private readonly mail: MailTransport,
    private readonly verp: VerpAddresses,
    private readonly senderDomains: SenderDomainsService,
    private readonly suppressions: SuppressionList,
  ) {
    super();
  }

  async process(job: Job<TransactionalJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    const message = await this.messages.claim(
      accountId,
      job.data.messageId,
      TRANSACTIONAL_CLAIM_LEASE_MS,
    );
    // Sent, failed, erased, or being sent by another worker: nothing to do.
    if (!message) return;

    const to = message.toAddress!;
    // The address may have bounced, complained or unsubscribed since the send was accepted.
    const suppressed = await this.suppressions.find(accountId, to);
    if (suppressed) {
      await this.outcomes.failed(message, suppressedSinceAccepted(suppressed.reason));
      return;
    }
    let headerMessageId: string;
    try {
      const sender = await this.senderDomains.signingIdentity(accountId, message.fromAddress);
      ({ messageId: headerMessageId } = await this.mail.send({
        from: message.fromAddress,
        to,
        subject: message.subject ?? '',
        html: message.html,
        // Every message has a text part: generated from the HTML when the author gave none.
        text: message.text ?? (message.html ? await textFromHtml(message.html) : null),
        messageId: message.id,
        storageKey: recipientStorageKey(message.recipientHash),
        dkim: sender?.dkim,
        // Bounce reports come back here, naming this message by its signed token.
        envelopeFrom: this.verp.returnPath(
          { kind: 'transactional', messageId: message.id },
          sender,
        ),
      }));
    } catch (error) {
      await this.recordFailure(job, message, error);
      return;
    }
    // Outside the try: once the relay accepted it, a failure to record must not resend it now.
    await this.outcomes.sent(message, headerMessageId, normalizeEmail(to));
  }

  /**
   * Runs before @nestjs/bullmq's own (graceful) close, which in BullMQ 6 waits forever when
   * Redis cannot be reached and would hang shutdown. With Redis reachable, close gracefully
   * (let running sends finish); without it, force: an interrupted job is recovered anyway.
   */
  async onModuleDestroy(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), REDIS_PROBE_MS);
    });
    const reachable = await Promise.race([
      this.worker.waitUntilReady().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
    clearTimeout(timer);
    await this.worker.close(!reachable);
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    reportRedisError('the transactional worker', error);
  }

  private async recordFailure(job: Job<TransactionalJob>, message: ClaimedMessage, error: unknown) {
    const permanent = error instanceof MailDeliveryError && error.permanent;
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const reason = describe(error, message.toAddress!);
    if (permanent || lastAttempt) {
      // Only the relay's refusals are bounces; our own errors say nothing of the address.
      const bounce =
        error instanceof MailDeliveryError
          ? { hard: permanent, emailNormalized: normalizeEmail(message.toAddress!) }
          : undefined;
      await this.outcomes.failed(message, reason, bounce);
      return;
    }
    await this.messages.release(message, reason);
    this.logger.warn({ messageId: message.id, attempt: job.attemptsMade + 1 }, 'send will retry');
    // Rethrown so BullMQ schedules the retry with backoff.
    throw error;
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
