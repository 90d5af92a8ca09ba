import { Injectable } from '@nestjs/common';
import { Prisma, Subscriber, TransactionalMessage } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { SOFT_BOUNCE_LIMIT } from '../suppression/suppression-reason';

type Db = Prisma.TransactionClient;

const ERASED = 'The recipient was erased before the message was sent.';

export type MessageStatus = 'queued' | 'sending' | 'sent' | 'failed';

export interface NewMessage {
  id: string;
  /** Null when a dashboard user sent it. */
  apiKeyId: string | null;
  templateId: string | null;
  recipientHash: string;
  toAddress: string;
  fromAddress: string;
  subject: string;
  html: string | null;
  text: string | null;
}

/** What a worker needs to send a claimed message. */
export type ClaimedMessage = Pick<
  TransactionalMessage,
  | 'id'
  | 'accountId'
  | 'recipientHash'
  | 'toAddress'
  | 'fromAddress'
  | 'subject'
  | 'html'
  | 'text'
  | 'attempts'
>;

/** A relay's refusal of a message, and how to suppress the address within the write. */
export interface FailedBounce {
  hard: boolean;
  emailNormalized: string;
  suppress(tx: Db): Promise<unknown>;
}

export interface MessageRef {
  accountId: string;
  id: string;
}

@Injectable()
export class TransactionalMessagesRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(accountId: string, message: NewMessage, db: Db): Promise<TransactionalMessage> {
    return db.transactionalMessage.create({ data: { ...message, accountId } });
  }

  findById(accountId: string, id: string): Promise<TransactionalMessage | null> {
    return this.prisma.transactionalMessage.findFirst({ where: { accountId, id } });
  }

  /** The recipient's subscriber row, whose fields a template may merge. */
  findRecipient(accountId: string, emailNormalized: string, db: Db): Promise<Subscriber | null> {
    return db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
    });
  }

  /**
   * The worker's claim, one conditional UPDATE: only a queued message (or one whose claim
   * lapsed, its worker presumed dead) moves to `sending`. A duplicate job, or a job for a
   * message already sent, failed or scrubbed by an erasure, gets nothing and sends nothing.
   */
  async claim(accountId: string, id: string, leaseMs: number): Promise<ClaimedMessage | undefined> {
    const rows = await this.prisma.$queryRaw<ClaimedMessage[]>`
      UPDATE transactional_messages
      SET status = 'sending', claimed_at = now(), attempts = attempts + 1, updated_at = now()
      WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND to_address IS NOT NULL
        AND (status = 'queued'
             OR (status = 'sending' AND claimed_at < now() - make_interval(secs => ${leaseMs / 1000})))
      RETURNING id, account_id AS "accountId", recipient_hash AS "recipientHash",
        to_address AS "toAddress", from_address AS "fromAddress", subject, html, text, attempts`;
    return rows[0];
  }

  /**
   * Records the delivery and counts it in the recipient's statistics, if the recipient is a
   * subscriber of the account, in one transaction.
   */
  async markSent(message: ClaimedMessage, headerMessageId: string, emailNormalized: string) {
    await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`
        UPDATE transactional_messages
        SET status = 'sent', sent_at = now(), updated_at = now(), error = NULL,
            header_message_id = ${headerMessageId}
        WHERE account_id = ${message.accountId}::uuid AND id = ${message.id}::uuid`;
      await tx.$executeRaw`
        UPDATE subscribers
        SET stat_sent = stat_sent + 1, stat_delivered = stat_delivered + 1, last_sent_at = now()
        WHERE account_id = ${message.accountId}::uuid AND email_normalized = ${emailNormalized}`;
    });
  }

  /**
   * Gives a claimed message back after a temporary failure, for the job's retry to claim
   * again; unless its recipient was erased meanwhile, which ends it.
   */
  async release(ref: MessageRef, error: string): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE transactional_messages
      SET status = CASE WHEN scrubbed_at IS NULL THEN 'queued' ELSE 'failed' END,
          error = CASE WHEN scrubbed_at IS NULL THEN ${error} ELSE ${ERASED} END,
          claimed_at = NULL, updated_at = now()
      WHERE account_id = ${ref.accountId}::uuid AND id = ${ref.id}::uuid AND status = 'sending'`;
  }

  /**
   * Ends a message as failed. When the relay refused it (`bounce`), the attempt counts in the
   * recipient's statistics as campaign sends do: sent, and a hard (5xx) or soft bounce; a
   * hard bounce, or the SOFT_BOUNCE_LIMIT-th soft one in a row, marks a subscribed recipient
   * `bounced` and calls `bounce.suppress` in the same transaction (a hard bounce suppresses
   * the address even when it is no subscriber).
   */
  async markFailed(ref: MessageRef, error: string, bounce?: FailedBounce): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const ended = await tx.$executeRaw`
        UPDATE transactional_messages
        SET status = 'failed', updated_at = now(),
            error = CASE WHEN scrubbed_at IS NULL THEN ${error} ELSE ${ERASED} END
        WHERE account_id = ${ref.accountId}::uuid AND id = ${ref.id}::uuid
          AND status IN ('queued', 'sending')`;
      if (ended === 0 || !bounce) return;
      const hard = bounce.hard ? 1 : 0;
      const rows = await tx.$queryRaw<{ suppress: boolean }[]>`
        UPDATE subscribers
        SET stat_sent = stat_sent + 1, stat_hard_bounces = stat_hard_bounces + ${hard},
            stat_soft_bounces = stat_soft_bounces + ${1 - hard},
            soft_bounce_streak = soft_bounce_streak + ${1 - hard},
            status = CASE WHEN status = 'subscribed'
                           AND (${hard} = 1 OR soft_bounce_streak + 1 >= ${SOFT_BOUNCE_LIMIT})
                          THEN 'bounced' ELSE status END,
            last_sent_at = now()
        WHERE account_id = ${ref.accountId}::uuid
          AND email_normalized = ${bounce.emailNormalized}
        RETURNING soft_bounce_streak >= ${SOFT_BOUNCE_LIMIT} AS suppress`;
      if (bounce.hard || rows[0]?.suppress) await bounce.suppress(tx);
    });
  }

  /**
   * Recovery, run by the sweep: claims whose worker died go back to the queue, and queued
   * messages older than `olderThanMs` are returned so their job can be added again (a crash
   * between commit and enqueue, or a lost Redis). Adding is idempotent (jobId = message id).
   */
  async findStranded(olderThanMs: number, leaseMs: number, limit: number): Promise<MessageRef[]> {
    await this.prisma.$executeRaw`
      UPDATE transactional_messages
      SET status = CASE WHEN scrubbed_at IS NULL THEN 'queued' ELSE 'failed' END,
          error = CASE WHEN scrubbed_at IS NULL THEN error ELSE ${ERASED} END,
          claimed_at = NULL, updated_at = now()
      WHERE status = 'sending' AND claimed_at < now() - make_interval(secs => ${leaseMs / 1000})`;
    return this.prisma.$queryRaw<MessageRef[]>`
      SELECT account_id AS "accountId", id FROM transactional_messages
      WHERE status = 'queued' AND to_address IS NOT NULL AND updated_at < now() - make_interval(secs => ${olderThanMs / 1000})
      ORDER BY updated_at LIMIT ${limit}`;
  }

  /**
   * Erasure: strips every personal column of the messages to this recipient, inside the
   * erasing transaction. A message not yet sent will not be: it is marked failed.
   */
  async scrubRecipient(accountId: string, recipientHash: string, db: Db): Promise<void> {
    await db.$executeRaw`
      UPDATE transactional_messages
      SET to_address = NULL, subject = NULL, html = NULL, text = NULL, scrubbed_at = now(),
          updated_at = now(),
          error = CASE WHEN status = 'queued' THEN ${ERASED} END,
          status = CASE WHEN status = 'queued' THEN 'failed' ELSE status END
      WHERE account_id = ${accountId}::uuid AND recipient_hash = ${recipientHash}`;
  }
}
