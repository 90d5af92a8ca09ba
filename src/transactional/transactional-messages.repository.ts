import { Inject, Injectable } from '@nestjs/common';
import { TransactionalMessage } from '../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import type { HeraldConfig, SmtpRetryPolicy } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import {
  type ComposedStatement,
  relation,
  type Relation,
} from '../platform/database/composed-statement';
import type { Db } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
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
  /** A submitted message's own bytes (html and text null then). */
  mime?: Uint8Array<ArrayBuffer> | null;
}

/**
 * What a worker needs to send a claimed message. `attempts` is the claim's number, its fencing
 * token; `claimedAt` and `deferredSince` are the database's clock (the retry horizon).
 */
export type ClaimedMessage = Pick<
  TransactionalMessage,
  | 'id'
  | 'recipientHash'
  | 'toAddress'
  | 'fromAddress'
  | 'subject'
  | 'html'
  | 'text'
  | 'mime'
  | 'attempts'
  | 'claimedAt'
  | 'deferredSince'
> & { accountId: AccountId };

/** One transactional_messages row, named with its account. */
export interface TransactionalMessageId {
  accountId: AccountId;
  id: string;
}

/**
 * transactional_messages and its only writer. The row is the durable intent; a worker claims
 * it with a conditional UPDATE under a lease, so a duplicate job never sends twice, and every
 * later write of the worker's is fenced by the claim's number (`attempts`): once another
 * worker took a lapsed claim over, the first one's writes change nothing. The SQL is in
 * transactional.sql.ts.
 */
@Injectable()
export class TransactionalMessagesRepository {
  /** The claim's prepared name, unless a pooler in front cannot keep names (see config). */
  private readonly claimName: string | undefined;

  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
    @Inject(CONFIG) config: HeraldConfig,
  ) {
    this.claimName = config.database.namedStatements ? 'transactional_claim' : undefined;
  }

  create(accountId: AccountId, message: NewMessage, db: Db): Promise<TransactionalMessage> {
    return db.transactionalMessage.create({ data: { ...message, accountId } });
  }

  /**
   * create() as a part of a composed write: inserted only when none of the relations `unless`
   * holds a row. The relation names the row created, if any.
   */
  addCreated(
    statement: ComposedStatement,
    accountId: AccountId,
    message: Omit<NewMessage, 'mime'>,
    unless: Relation<never>[],
  ): Relation<'id'> {
    const p = (value: unknown) => statement.param(value);
    statement.with(
      sql.createMessagePart({
        id: p(message.id),
        account: p(accountId),
        apiKey: p(message.apiKeyId),
        template: p(message.templateId),
        recipientHash: p(message.recipientHash),
        to: p(message.toAddress),
        from: p(message.fromAddress),
        subject: p(message.subject),
        html: p(message.html),
        text: p(message.text),
        unless: unless.map(({ name }) => name),
      }),
    );
    return relation('tx_created');
  }

  findById(accountId: AccountId, id: string): Promise<TransactionalMessage | null> {
    return this.prisma.transactionalMessage.findFirst({ where: { accountId, id } });
  }

  /**
   * The worker's claim, one conditional UPDATE: only a queued message (or one whose claim
   * lapsed, its worker presumed dead) moves to `sending`, leased for `leaseMs`. A duplicate
   * job, or a job for a message already sent, failed or scrubbed by an erasure, gets nothing
   * and sends nothing.
   */
  async claim(
    accountId: AccountId,
    id: string,
    leaseMs: number,
  ): Promise<ClaimedMessage | undefined> {
    // On the pool, not Prisma: once per message on the send path, where Prisma's client cost
    // more CPU than the statement.
    const query = sql.claimMessage(accountId, id, leaseMs);
    const { rows } = await this.pool.query<ClaimedMessage>({
      name: this.claimName,
      text: query.text,
      values: query.values,
    });
    return rows[0];
  }

  /**
   * How long the current claim on a message has left (ms; 0 or less once it lapsed), or
   * undefined when nobody holds one (it was sent, failed, or is queued).
   */
  async leaseRemainingMs(accountId: AccountId, id: string): Promise<number | undefined> {
    const [row] = await this.prisma.$queryRaw<{ remainingMs: number }[]>(
      sql.leaseRemaining(accountId, id),
    );
    return row?.remainingMs;
  }

  /** Extends the claim's lease; false when the claim is no longer this worker's. */
  async renewLease(claim: ClaimedMessage, leaseMs: number): Promise<boolean> {
    const renewed = await this.prisma.$executeRaw(
      sql.renewLease(claim.accountId, claim.id, claim.attempts, leaseMs),
    );
    return renewed > 0;
  }

  /**
   * Adds the message's part of its outcome write to `statement`: sent, if the claim is still
   * this worker's (see markSentPart); nothing when another worker had taken the claim over.
   * Names the row it ended, as a delivered send.
   */
  addSent(
    statement: ComposedStatement,
    claim: ClaimedMessage,
    headerMessageId: string,
  ): Relation<'id' | 'delivered' | 'hard_bounce' | 'soft_bounce'> {
    statement.with(
      sql.markSentPart({
        account: statement.param(claim.accountId),
        id: statement.param(claim.id),
        epoch: statement.param(claim.attempts),
        header: statement.param(headerMessageId),
      }),
    );
    return relation('tx_sent');
  }

  /**
   * Gives a claimed message back after a failure that was not the relay's answer, for the
   * job's retry (or the sweep) to claim again; unless its recipient was erased meanwhile,
   * which ends it.
   */
  async release(claim: ClaimedMessage, error: string): Promise<void> {
    await this.prisma.$executeRaw(
      sql.releaseMessage(claim.accountId, claim.id, claim.attempts, error),
    );
  }

  /**
   * Queues a message the relay refused for now to its next try (see deferMessage); how many
   * milliseconds until it is due, or undefined when the claim was no longer this worker's or the
   * recipient was erased meanwhile (the message has ended).
   */
  async defer(
    claim: ClaimedMessage,
    error: string,
    policy: Pick<SmtpRetryPolicy, 'firstSeconds' | 'maxSeconds'>,
    db: Db = this.prisma,
  ): Promise<number | undefined> {
    const [row] = await db.$queryRaw<{ status: string; delaySeconds: number }[]>(
      sql.deferMessage(
        claim.accountId,
        claim.id,
        claim.attempts,
        error,
        policy.firstSeconds,
        policy.maxSeconds,
      ),
    );
    return row?.status === 'queued' ? Math.max(0, row.delaySeconds * 1000) : undefined;
  }

  /**
   * Ends a queued or claimed message as failed, inside `tx`; false when it had already ended
   * (so nothing is counted twice). With `epoch` (a worker's claim), only while that claim holds.
   */
  async markFailed(
    ref: TransactionalMessageId,
    error: string,
    tx: Db,
    epoch?: number,
  ): Promise<boolean> {
    const statement =
      epoch === undefined
        ? sql.markFailed(ref.accountId, ref.id, error)
        : sql.markClaimFailed(ref.accountId, ref.id, epoch, error);
    return (await tx.$executeRaw(statement)) > 0;
  }

  /**
   * Recovery, run by the sweep across accounts: claims whose lease ran out (their worker died
   * or froze) go back to the queue and are returned at once, with the queued messages older
   * than `olderThanMs` whose job may have been lost (a crash between commit and enqueue, a
   * lost Redis). Adding a job is idempotent (jobId = message id).
   */
  async findStrandedAcrossAccounts(
    olderThanMs: number,
    limit: number,
  ): Promise<TransactionalMessageId[]> {
    const lapsed = await this.prisma.$queryRaw<{ accountId: string; id: string; status: string }[]>(
      sql.requeueLapsedClaims(limit),
    );
    const waiting = await this.prisma.$queryRaw<{ accountId: string; id: string }[]>(
      sql.strandedMessages(olderThanMs, limit),
    );
    const requeued = lapsed.filter((row) => row.status === 'queued');
    const seen = new Set(requeued.map((row) => row.id));
    return [...requeued, ...waiting.filter((row) => !seen.has(row.id))].map((row) => ({
      accountId: accountIdOfRow(row.accountId),
      id: row.id,
    }));
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
