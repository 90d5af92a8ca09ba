import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnModuleDestroy } from '@nestjs/common';
import type { Job } from 'bullmq';
import { Prisma } from '../generated/prisma/client';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { SuppressionList } from '../suppression/suppression-list';
import { VerpAddresses } from '../feedback/verp-address';
import { MailDeliveryError, MailTransport } from '../platform/mail/mail-transport';
import { QUEUES } from '../platform/queue/queue.module';
import { recipientStorageKey } from './transactional-erasure.participant';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';
import { TransactionalJob } from './transactional-queue';

/**
 * How long a claim protects a message from other workers. Longer than the slowest SMTP
 * exchange nodemailer allows; after it the worker is presumed dead and the sweep requeues
 * the message (so a crash mid-send may send it twice, never zero times).
 */
export const CLAIM_LEASE_MS = 15 * 60_000;

const MAX_ERROR_LENGTH = 500;
/** How long shutdown waits to learn whether Redis answers before forcing the worker closed. */
const REDIS_PROBE_MS = 1000;

/**
 * Sends one transactional message per job. The job holds only ids; the row, claimed with a
 * conditional UPDATE, holds the content. Permanent refusals (SMTP 5xx) and the last attempt
 * mark it failed; temporary ones give it back and let BullMQ retry with backoff.
 */
@Processor(QUEUES.transactional, { concurrency: 8 })
export class TransactionalSendProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(TransactionalSendProcessor.name);

  constructor(
    private readonly messages: TransactionalMessagesRepository,
    private readonly mail: MailTransport,
    private readonly suppressions: SuppressionList,
    private readonly verp: VerpAddresses,
  ) {
    super();
  }

  async process(job: Job<TransactionalJob>): Promise<void> {
    const { accountId, messageId } = job.data;
    const message = await this.messages.claim(accountId, messageId, CLAIM_LEASE_MS);
    // Sent, failed, erased, or being sent by another worker: nothing to do.
    if (!message) return;

    const to = message.toAddress!;
    let headerMessageId: string;
    try {
      ({ messageId: headerMessageId } = await this.mail.send({
        from: message.fromAddress,
        to,
        subject: message.subject ?? '',
        html: message.html,
        text: message.text,
        messageId: message.id,
        // Bounce reports come back here, naming this message by its signed token.
        returnPath: this.verp.address('bounce', { kind: 'transactional', messageId: message.id }),
        storageKey: recipientStorageKey(message.recipientHash),
      }));
    } catch (error) {
      await this.recordFailure(job, message, error);
      return;
    }
    // Outside the try: once the relay accepted it, a failure to record must not resend it now.
    await this.messages.markSent(message, headerMessageId, normalizeEmail(to));
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
    this.logger.warn({ err: error }, 'transactional worker error');
  }

  private async recordFailure(job: Job<TransactionalJob>, message: ClaimedMessage, error: unknown) {
    const permanent = error instanceof MailDeliveryError && error.permanent;
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const reason = describe(error, message.toAddress!);
    if (permanent || lastAttempt) {
      // Only the relay's refusals are bounces; our own errors say nothing of the address.
      const emailNormalized = normalizeEmail(message.toAddress!);
      const bounce =
        error instanceof MailDeliveryError
          ? {
              hard: permanent,
              emailNormalized,
              suppress: (tx: Prisma.TransactionClient) =>
                this.suppressions.suppress(message.accountId, emailNormalized, 'hard_bounce', tx),
            }
          : undefined;
      await this.messages.markFailed(message, reason, bounce);
      return;
    }
    await this.messages.release(message, reason);
    this.logger.warn({ messageId: message.id, attempt: job.attemptsMade + 1 }, 'send will retry');
    // Rethrown so BullMQ schedules the retry with backoff.
    throw error;
  }
}

/** The failure as the API shows it: the relay's words, without the recipient's address. */
function describe(error: unknown, to: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split(to).join('<recipient>').slice(0, MAX_ERROR_LENGTH);
}
