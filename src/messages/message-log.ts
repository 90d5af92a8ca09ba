import { Inject, Injectable } from '@nestjs/common';
import { ErasureGuard } from '../erasure/erasure-guard';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { newIds } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import { PgPool } from '../platform/database/pg-pool';
import type { SqlRunner } from '../platform/database/sql-runner';
import {
  LoggedRows,
  MessageSource,
  MessagesRepository,
  MessageRow,
  MessageStatus,
  NewMessageEvent,
} from './messages.repository';

export type { MessageRef, NewMessageEvent } from './messages.repository';

/** A message to put into the log, as whoever sends it knows it. */
export interface NewMessage {
  /** The message's id (a transactional send's is the id its 202 answered). UUIDv7. */
  id: string;
  source: MessageSource;
  recipient: string;
  from: string;
  subject: string | null;
  /** The Message-ID header it goes out with, when known. */
  messageId?: string | null;
  campaignId?: string | null;
  subscriberId?: string | null;
  automationId?: string | null;
  automationRunId?: string | null;
  /** `queued` unless it is recorded after the fact. */
  status?: MessageStatus;
}

/** What the log keeps of one campaign message whose outcome a send is writing. */
export interface CampaignMessageOutcome {
  subscriberId: string;
  recipient: string;
  subject: string | null;
  messageId: string;
  /** The relay's reply, or why the message could not be made. */
  reply?: string | null;
}

/**
 * How senders put messages into the message log: the one way in for every source. `record`
 * writes a message (inside the sender's transaction, so a message exists exactly when its
 * send does); `append` adds events to it and moves its status forward; a campaign's messages
 * ride on its outcome write (`addCampaignOutcomes`). Recipients are kept with their erasure
 * hash, which is what a recipient search and an erasure look for.
 */
@Injectable()
export class MessageLog {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly repository: MessagesRepository,
    private readonly erasureGuard: ErasureGuard,
    private readonly pool: PgPool,
  ) {}

  async record(db: SqlRunner, accountId: AccountId, message: NewMessage): Promise<void> {
    await this.repository.insert(db, accountId, this.row(accountId, message));
  }

  /**
   * record() as a part of the sender's composed write: the message is written only when the
   * relation `when` (the sender's own row for it) holds a row, in the same statement.
   */
  addRecord(
    statement: ComposedStatement,
    accountId: AccountId,
    message: NewMessage,
    when: Relation<never>,
  ): void {
    this.repository.addInsertPart(statement, accountId, this.row(accountId, message), when);
  }

  /**
   * A message recorded once its fate is known (a test send), with its events, in one
   * transaction of its own. Events name no message: they are this one's.
   */
  async recordFinished(
    accountId: AccountId,
    message: NewMessage,
    events: Omit<NewMessageEvent, 'message'>[],
  ): Promise<void> {
    await this.pool.transaction(async (client) => {
      await this.record(client, accountId, message);
      await this.append(
        client,
        accountId,
        events.map((event) => ({ ...event, message: { messageId: message.id } })),
      );
    });
  }

  /** Appends events to messages of the account; events of messages not in the log are dropped. */
  append(db: SqlRunner, accountId: AccountId, events: NewMessageEvent[]): Promise<void> {
    return this.repository.appendEvents(db, accountId, events);
  }

  /**
   * append() for one message's events, as a part of its outcome write: written only when the
   * relation `when` holds a row, in the same statement.
   */
  addEvents(
    statement: ComposedStatement,
    accountId: AccountId,
    messageId: string,
    events: Omit<NewMessageEvent, 'message'>[],
    when: Relation<never>,
  ): void {
    if (events.length === 0) return;
    this.repository.addEventsPart(statement, accountId, messageId, events, when);
  }

  /**
   * The log's part of a campaign's outcome write: a message per row the ledger part wrote
   * (`logged`) and the events of its outcome, in the same statement: no round trip of its own.
   */
  addCampaignOutcomes(
    statement: ComposedStatement,
    accountId: AccountId,
    campaignId: string,
    logged: LoggedRows,
    outcomes: CampaignMessageOutcome[],
  ): void {
    if (outcomes.length === 0) return;
    const ids = newIds(outcomes.length);
    this.repository.addCampaignPart(
      statement,
      accountId,
      campaignId,
      logged,
      outcomes.map((o, i) => ({
        subscriberId: o.subscriberId,
        id: ids[i],
        recipient: o.recipient,
        recipientHash: this.erasureGuard.emailHash(accountId, o.recipient),
        subject: o.subject,
        headerMessageId: o.messageId,
        reply: o.reply ?? null,
      })),
    );
  }

  /** Messages created before this are past retention: answered 404, deleted by the sweep. */
  keptAfter(now = Date.now()): Date {
    return new Date(now - this.config.messageRetentionDays * 86_400_000);
  }

  private row(accountId: AccountId, message: NewMessage): MessageRow {
    return {
      id: message.id,
      source: message.source,
      campaignId: message.campaignId ?? null,
      subscriberId: message.subscriberId ?? null,
      automationId: message.automationId ?? null,
      automationRunId: message.automationRunId ?? null,
      recipient: message.recipient,
      recipientHash: this.erasureGuard.emailHash(accountId, message.recipient),
      fromAddress: message.from,
      subject: message.subject,
      headerMessageId: message.messageId ?? null,
      status: message.status ?? 'queued',
    };
  }
}
