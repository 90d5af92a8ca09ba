import { Inject, Injectable } from '@nestjs/common';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import { PgPool } from '../platform/database/pg-pool';
import { runSql, type SqlRunner } from '../platform/database/sql-runner';
import type { PageRequest } from '../platform/pagination/page-request';
import * as sql from './messages.sql';

/** A message as its sender records it (see MessageLog.record). */
export interface MessageRow {
  id: string;
  source: MessageSource;
  campaignId: string | null;
  subscriberId: string | null;
  automationId: string | null;
  automationRunId: string | null;
  recipient: string | null;
  recipientHash: string | null;
  fromAddress: string;
  subject: string | null;
  headerMessageId: string | null;
  status: MessageStatus;
}

export const MESSAGE_SOURCES = ['campaign', 'transactional', 'automation', 'test'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/**
 * The steps of a message's delivery: each is both a status the message can be in and the
 * event that records it reaching that status.
 */
const DELIVERY_STEPS = [
  'queued',
  'sent',
  'delivered',
  'deferred',
  'bounced',
  'complained',
  'failed',
] as const;

/** A delivery step, or `suppressed`: skipped at send time (a suppressed address), never tried. */
export const MESSAGE_STATUSES = [...DELIVERY_STEPS, 'suppressed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A delivery step, or what the recipient did with the message. */
export const EVENT_TYPES = [...DELIVERY_STEPS, 'opened', 'clicked', 'unsubscribed'] as const;
export type MessageEventType = (typeof EVENT_TYPES)[number];

/** Which message an event is about: its id, or a campaign's (campaign, subscriber). */
export type MessageRef = { messageId: string } | { campaignId: string; subscriberId: string };

export interface NewMessageEvent {
  message: MessageRef;
  type: Exclude<MessageEventType, 'queued'>;
  smtpCode?: number | null;
  /** The SMTP reply, or why it failed: erased with the identity. */
  reason?: string | null;
  url?: string | null;
  machine?: boolean | null;
}

/** A message read back (snake_case, as selected). */
export interface StoredMessage {
  id: string;
  header_message_id: string | null;
  source: MessageSource;
  campaign_id: string | null;
  automation_id: string | null;
  automation_run_id: string | null;
  subscriber_id: string | null;
  recipient: string | null;
  from_address: string;
  subject: string | null;
  status: MessageStatus;
  created_at: Date;
}

export interface StoredEvent {
  type: MessageEventType;
  at: Date;
  smtp_code: number | null;
  reason: string | null;
  url: string | null;
  machine: boolean | null;
}

/** An event as json_agg returns it: the time as text. */
type JsonEvent = Omit<StoredEvent, 'at'> & { at: string };

/** A campaign message whose outcome is being written, with what the log keeps of it. */
export interface CampaignLogEntry {
  subscriberId: string;
  /** The id the message gets if this is its first outcome. */
  id: string;
  recipient: string;
  recipientHash: string;
  subject: string | null;
  headerMessageId: string;
  reply: string | null;
}

/** The rows of an outcome write the log reads (the ledger part's `logged`). */
export type LoggedRows = Relation<'subscriber_id' | 'status' | 'skip_reason' | 'smtp_code'>;

/**
 * messages and message_events: the only writer of both. Reads run on the pool directly (a
 * message page is a hot read, see bench/messages); writes join the caller's transaction.
 */
@Injectable()
export class MessagesRepository {
  /** GET_MESSAGE's prepared name, unless a pooler in front cannot keep names (see config). */
  private readonly getMessageName: string | undefined;

  constructor(
    private readonly pool: PgPool,
    @Inject(CONFIG) config: HeraldConfig,
  ) {
    this.getMessageName = config.database.namedStatements ? sql.GET_MESSAGE_NAME : undefined;
  }

  async insert(db: SqlRunner, accountId: AccountId, m: MessageRow): Promise<void> {
    await runSql(db, sql.INSERT_MESSAGE, [
      accountId,
      m.id,
      m.source,
      m.campaignId,
      m.subscriberId,
      m.automationId,
      m.automationRunId,
      m.recipient,
      m.recipientHash,
      m.fromAddress,
      m.subject,
      m.headerMessageId,
      m.status,
    ]);
  }

  async appendEvents(db: SqlRunner, accountId: AccountId, events: NewMessageEvent[]) {
    if (events.length === 0) return;
    const column = <T>(pick: (event: NewMessageEvent) => T) => events.map(pick);
    await runSql(db, sql.APPEND_EVENTS, [
      accountId,
      column((e) => ('messageId' in e.message ? e.message.messageId : null)),
      column((e) => ('campaignId' in e.message ? e.message.campaignId : null)),
      column((e) => ('subscriberId' in e.message ? e.message.subscriberId : null)),
      column((e) => e.type),
      column((e) => e.smtpCode ?? null),
      column((e) => e.reason ?? null),
      column((e) => e.url ?? null),
      column((e) => e.machine ?? null),
    ]);
  }

  /** insert() as a part of a composed write, when `when` holds a row (see insertMessagePart). */
  addInsertPart(
    statement: ComposedStatement,
    accountId: AccountId,
    m: MessageRow,
    when: Relation<never>,
  ): void {
    const p = (value: unknown) => statement.param(value);
    statement.with(
      sql.insertMessagePart({
        account: p(accountId),
        id: p(m.id),
        source: p(m.source),
        campaign: p(m.campaignId),
        subscriber: p(m.subscriberId),
        automation: p(m.automationId),
        automationRun: p(m.automationRunId),
        recipient: p(m.recipient),
        recipientHash: p(m.recipientHash),
        from: p(m.fromAddress),
        subject: p(m.subject),
        header: p(m.headerMessageId),
        status: p(m.status),
        when: when.name,
      }),
    );
  }

  /** appendEvents for one message, as a part of its outcome write (see messageEventsPart). */
  addEventsPart(
    statement: ComposedStatement,
    accountId: AccountId,
    messageId: string,
    events: Omit<NewMessageEvent, 'message'>[],
    when: Relation<never>,
  ): void {
    const p = (value: unknown) => statement.param(value);
    statement.with(
      sql.messageEventsPart({
        account: p(accountId),
        message: p(messageId),
        types: p(events.map((e) => e.type)),
        codes: p(events.map((e) => e.smtpCode ?? null)),
        reasons: p(events.map((e) => e.reason ?? null)),
        when: when.name,
      }),
    );
  }

  /** The log's part of a campaign's outcome write (see campaignMessagesPart). */
  addCampaignPart(
    statement: ComposedStatement,
    accountId: AccountId,
    campaignId: string,
    logged: LoggedRows,
    entries: CampaignLogEntry[],
  ): void {
    const p = (value: unknown) => statement.param(value);
    const column = <T>(pick: (entry: CampaignLogEntry) => T) => p(entries.map(pick));
    statement.with(
      sql.campaignMessagesPart(
        {
          account: p(accountId),
          campaign: p(campaignId),
          subscribers: column((e) => e.subscriberId),
          ids: column((e) => e.id),
          recipients: column((e) => e.recipient),
          hashes: column((e) => e.recipientHash),
          subjects: column((e) => e.subject),
          headers: column((e) => e.headerMessageId),
          replies: column((e) => e.reply),
        },
        logged.name,
      ),
    );
  }

  /** A message of the account with its events, oldest first; null when not found or expired. */
  async find(
    accountId: AccountId,
    id: string,
    keptAfter: Date,
  ): Promise<(StoredMessage & { events: StoredEvent[] }) | null> {
    const { rows } = await this.pool.query<StoredMessage & { events: JsonEvent[] }>({
      name: this.getMessageName,
      text: sql.GET_MESSAGE,
      values: [accountId, id, keptAfter],
    });
    const row = rows[0];
    if (!row) return null;
    return { ...row, events: row.events.map((event) => ({ ...event, at: new Date(event.at) })) };
  }

  async listPage(
    accountId: AccountId,
    keptAfter: Date,
    filters: sql.ListFilters,
    request: PageRequest,
  ): Promise<StoredMessage[]> {
    const { text, values } = sql.listMessages(
      accountId,
      keptAfter,
      filters,
      request.limit,
      request.afterId,
    );
    const { rows } = await this.pool.query<StoredMessage>(text, values);
    return rows;
  }

  async erase(
    db: SqlRunner,
    accountId: AccountId,
    emailHash: string,
    subscriberId: string | undefined,
  ): Promise<void> {
    await runSql(db, sql.ERASE_MESSAGES, [accountId, emailHash, subscriberId ?? null]);
  }

  /** One bounded batch of retention; how many rows of each table went. */
  async deleteExpired(boundaryId: string, limit: number) {
    const events = await this.pool.query(sql.DELETE_EXPIRED_EVENTS, [boundaryId, limit]);
    const messages = await this.pool.query(sql.DELETE_EXPIRED_MESSAGES, [boundaryId, limit]);
    return { events: events.rowCount ?? 0, messages: messages.rowCount ?? 0 };
  }
}
