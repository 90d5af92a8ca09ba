import { Injectable } from '@nestjs/common';
import { TransactionalMessage } from '../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import * as sql from './transactional.sql';

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
  'id' | 'recipientHash' | 'toAddress' | 'fromAddress' | 'subject' | 'html' | 'text' | 'attempts'
> & { accountId: AccountId };

export interface MessageRef {
  accountId: AccountId;
  id: string;
}

/**
 * transactional_messages and its only writer. The row is the durable intent; a worker claims
 * it with a conditional UPDATE, so a duplicate job never sends twice. The SQL is in
 * transactional.sql.ts.
 */
@Injectable()
export class TransactionalMessagesRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(accountId: AccountId, message: NewMessage, db: Db): Promise<TransactionalMessage> {
    return db.transactionalMessage.create({ data: { ...message, accountId } });
  }

  findById(accountId: AccountId, id: string): Promise<TransactionalMessage | null> {
    return this.prisma.transactionalMessage.findFirst({ where: { accountId, id } });
  }

  /**
   * The worker's claim, one conditional UPDATE: only a queued message (or one whose claim
   * lapsed, its worker presumed dead) moves to `sending`. A duplicate job, or a job for a
   * message already sent, failed or scrubbed by an erasure, gets nothing and sends nothing.
   */
  async claim(
    accountId: AccountId,
    id: string,
    leaseMs: number,
  ): Promise<ClaimedMessage | undefined> {
    const rows = await this.prisma.$queryRaw<ClaimedMessage[]>(
      sql.claimMessage(accountId, id, leaseMs),
    );
    return rows[0];
  }

  /** Records the delivery, inside the transaction that counts it in the recipient's statistics. */
  async markSent(accountId: AccountId, id: string, headerMessageId: string, tx: Db) {
    await tx.$executeRaw(sql.markSent(accountId, id, headerMessageId));
  }

  /**
   * Gives a claimed message back after a temporary failure, for the job's retry to claim
   * again; unless its recipient was erased meanwhile, which ends it.
   */
  async release(ref: MessageRef, error: string): Promise<void> {
    await this.prisma.$executeRaw(sql.releaseMessage(ref.accountId, ref.id, error));
  }

  /**
   * Ends a queued or claimed message as failed, inside `tx`; false when it had already ended
   * (so nothing is counted twice).
   */
  async markFailed(ref: MessageRef, error: string, tx: Db): Promise<boolean> {
    return (await tx.$executeRaw(sql.markFailed(ref.accountId, ref.id, error))) > 0;
  }

  /**
   * Recovery, run by the sweep across accounts: claims whose worker died go back to the
   * queue, and queued messages older than `olderThanMs` are returned so their job can be added
   * again (a crash between commit and enqueue, or a lost Redis). Adding is idempotent
   * (jobId = message id).
   */
  async findStranded(olderThanMs: number, leaseMs: number, limit: number): Promise<MessageRef[]> {
    await this.prisma.$executeRaw(sql.requeueLapsedClaims(leaseMs));
    const rows = await this.prisma.$queryRaw<{ accountId: string; id: string }[]>(
      sql.strandedMessages(olderThanMs, limit),
    );
    return rows.map((row) => ({ accountId: accountIdOfRow(row.accountId), id: row.id }));
  }

  /**
   * Erasure: strips every personal column of the messages to this recipient, inside the
   * erasing transaction. A message not yet sent will not be: it is marked failed.
   */
  async scrubRecipient(accountId: AccountId, recipientHash: string, db: Db): Promise<void> {
    await db.$executeRaw(sql.scrubRecipient(accountId, recipientHash));
  }

  /** A message that left (or was tried), with its recipient; null once scrubbed or pending. */
  async findSent(
    id: string,
    db: Db = this.prisma,
  ): Promise<{ accountId: AccountId; toAddress: string } | null> {
    const [row] = await db.$queryRaw<{ account_id: string; to_address: string }[]>(
      sql.sentMessage(id),
    );
    return row ? { accountId: accountIdOfRow(row.account_id), toAddress: row.to_address } : null;
  }

  /** The latest message since `days` ago to a recipient known per account by its hash. */
  async latestSentTo(
    recipients: { accountId: AccountId; recipientHash: string }[],
    days: number,
  ): Promise<{ id: string; sentAt: Date } | null> {
    if (recipients.length === 0) return null;
    const [row] = await this.prisma.$queryRaw<{ id: string; sent_at: Date }[]>(
      sql.latestSentTo(
        recipients.map((r) => r.accountId),
        recipients.map((r) => r.recipientHash),
        days,
      ),
    );
    return row ? { id: row.id, sentAt: row.sent_at } : null;
  }
}
