import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureGuard } from '../erasure/erasure-guard';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import type { SqlRunner } from '../platform/database/sql-runner';
import { messageIdHeader } from '../platform/mail/mail-transport';
import { OutboundEvent, WebhookEventType } from '../webhooks/webhook-event-types';
import { PreparedBatch, WebhookPublisher } from '../webhooks/webhook-publisher';
import { MessageLog, NewMessageEvent } from '../messages/message-log';
import { MailEventSubjects } from './mail-event-subjects';
import { CampaignCounts, DayCounts, StatsRepository } from './stats.repository';

/** A campaign message: one campaign to one subscriber. */
export interface CampaignEventMessage {
  campaignId: string;
  subscriberId: string;
}

/** A transactional message; the address is known where the event comes from. */
export interface TransactionalEventMessage {
  transactionalId: string;
  email: string;
  /** The Message-ID it went out with, when the caller has it at hand. */
  messageId?: string | null;
  subscriberId?: string | null;
}

/** The message an event is about, with what its webhook payload needs besides the ids. */
export type EventMessage = CampaignEventMessage | TransactionalEventMessage;

/**
 * Something that happened to mail Herald sent. `sent`: the relay gave a final answer;
 * `delivered`: it was a 250; `bounced`: refused at sending or reported later; `opened` and
 * `clicked` name whether a machine did it and whether it was the person's first (unique).
 */
export type MailEvent =
  /** `reply`: the relay's answer, for the message log. */
  | { kind: 'sent' | 'delivered'; message: EventMessage; reply?: string }
  | {
      kind: 'bounced';
      message: EventMessage;
      hard: boolean;
      source: string;
      statusCode?: string | null;
      reply?: string;
    }
  | { kind: 'complained'; message: EventMessage; source: string }
  | { kind: 'opened'; message: CampaignEventMessage; machine: boolean; unique: boolean }
  | {
      kind: 'clicked';
      message: CampaignEventMessage;
      url: string;
      machine: boolean;
      unique: boolean;
    }
  /** Counted even for an address that is no subscriber's; published only for a subscriber. */
  | { kind: 'unsubscribed'; subscriberId: string | null; message?: EventMessage; source: string }
  | {
      kind: 'converted';
      subscriberId: string;
      campaignId: string | null;
      amountCents: number;
      occurredAt: Date;
    };

const EVENT_TYPE: Record<MailEvent['kind'], WebhookEventType | undefined> = {
  sent: 'email.sent',
  delivered: 'email.delivered',
  bounced: 'email.bounced',
  complained: 'email.complained',
  opened: 'email.opened',
  clicked: 'email.clicked',
  unsubscribed: 'subscriber.unsubscribed',
  converted: undefined,
};

const isCampaign = (ref: EventMessage): ref is CampaignEventMessage => 'campaignId' in ref;

/** Campaigns whose From is remembered per process (it is frozen once a campaign sends). */
const CAMPAIGN_CACHE = 1_000;

/**
 * The one path every mail event takes: it moves the statistics (the account's day, the
 * campaign's engagement and links) and publishes the outbound webhook events, both inside the
 * transaction that records the event where it happened (a send's outcome, an open, a bounce
 * report…). So the numbers and the events cannot disagree, and neither counts an event twice
 * when its recording is retried. A whole chunk of outcomes is one call: one statement per
 * table, and the webhook events (one batch row) ride on the days' statement.
 */
@Injectable()
export class MailEvents implements OnModuleInit {
  private readonly campaigns = new Map<string, { name: string; fromAddress: string }>();

  constructor(
    private readonly stats: StatsRepository,
    private readonly publisher: WebhookPublisher,
    private readonly subjects: MailEventSubjects,
    private readonly erasureGuard: ErasureGuard,
    private readonly messageLog: MessageLog,
  ) {}

  onModuleInit(): void {
    this.publisher.provideAddresses((db, accountId, ids) =>
      this.subjects.get('subscriberEmails')(db, accountId, ids),
    );
  }

  async record(db: SqlRunner, accountId: AccountId, events: MailEvent[]): Promise<void> {
    if (events.length === 0) return;
    const at = new Date();
    const batch = await this.outbound(db, accountId, events, at);
    // The events' batch rides on the statement that counts the days: publishing them costs
    // the transaction no round trip of its own (on the send path, a connection waits for this
    // commit before it takes its next message, so every round trip in it slows the send).
    const carried = await this.count(db, accountId, events, at, batch);
    await this.messageLog.append(db, accountId, messageEvents(events));
    if (!batch) return;
    if (!carried) await this.publisher.write(db, batch);
    this.publisher.published();
  }

  /**
   * The days' part of a campaign's outcome write, added to `statement`: the messages of the
   * relation `sends` (delivered, hard_bounce, soft_bounce) counted on the day of `at` exactly
   * as record() counts the `sent`, `delivered` and `bounced` events they make. Their webhook
   * events then go out with publishCounted, in the statement's transaction.
   */
  addSendCounts(
    statement: ComposedStatement,
    accountId: AccountId,
    at: Date,
    sends: Relation<'delivered' | 'hard_bounce' | 'soft_bounce'>,
  ) {
    this.stats.addSendCounts(statement, accountId, utcDay(at), sends);
  }

  /**
   * record() for one message's send events (sent, delivered, bounced) as parts of its outcome
   * write: counted on the day of `at` from the relation `sends` (as addSendCounts) and
   * appended to the message log, both only when `sends` holds a row. Their webhook events then
   * go out with publishCounted, in the statement's transaction.
   */
  addMessageSend(
    statement: ComposedStatement,
    accountId: AccountId,
    at: Date,
    messageId: string,
    events: MailEvent[],
    sends: Relation<'delivered' | 'hard_bounce' | 'soft_bounce'>,
  ) {
    this.addSendCounts(statement, accountId, at, sends);
    const logged = messageEvents(events).map(({ type, smtpCode, reason }) => ({
      type,
      smtpCode,
      reason,
    }));
    this.messageLog.addEvents(statement, accountId, messageId, logged, sends);
  }

  /** Whether any endpoint of the account wants a webhook event for one of these kinds. */
  async publishesAny(accountId: AccountId, kinds: MailEvent['kind'][]): Promise<boolean> {
    const wanted = await this.publisher.wantedTypes(accountId);
    return kinds.some((kind) => {
      const type = EVENT_TYPE[kind];
      return type !== undefined && wanted.has(type);
    });
  }

  /**
   * record() for events a composed statement has already counted (addSendCounts): only their
   * webhook events are published, in the caller's transaction.
   */
  async publishCounted(db: SqlRunner, accountId: AccountId, events: MailEvent[], at: Date) {
    const batch = await this.outbound(db, accountId, events, at);
    if (!batch) return;
    await this.publisher.write(db, batch);
    this.publisher.published();
  }

  // ---- statistics ---------------------------------------------------------------------------

  /** Returns whether the days' statement carried the batch. */
  private async count(
    db: SqlRunner,
    accountId: AccountId,
    events: MailEvent[],
    at: Date,
    batch: PreparedBatch | null,
  ): Promise<boolean> {
    const days = new Map<string, DayCounts>();
    const add = (day: string, counts: DayCounts) => {
      const total = days.get(day) ?? {};
      for (const [column, n] of Object.entries(counts) as [keyof DayCounts, number][]) {
        total[column] = (total[column] ?? 0) + n;
      }
      days.set(day, total);
    };
    const campaigns = new Map<string, CampaignCounts>();
    const addCampaign = (id: string, counts: CampaignCounts) => {
      const total = campaigns.get(id) ?? {};
      for (const [field, n] of Object.entries(counts) as [keyof CampaignCounts, number][]) {
        total[field] = (total[field] ?? 0) + n;
      }
      campaigns.set(id, total);
    };
    const today = utcDay(at);
    const clicks: Extract<MailEvent, { kind: 'clicked' }>[] = [];

    for (const event of events) {
      switch (event.kind) {
        case 'sent':
          add(today, { sent: 1 });
          break;
        case 'delivered':
          add(today, { delivered: 1 });
          break;
        case 'bounced':
          add(today, event.hard ? { hard_bounces: 1 } : { soft_bounces: 1 });
          break;
        case 'complained':
          add(today, { complaints: 1 });
          break;
        case 'unsubscribed':
          add(today, { unsubscribes: 1 });
          break;
        case 'opened':
          add(
            today,
            event.machine ? { machine_opens: 1 } : { opens: 1, unique_opens: event.unique ? 1 : 0 },
          );
          addCampaign(event.message.campaignId, event.machine ? { machineOpens: 1 } : { opens: 1 });
          break;
        case 'clicked':
          add(
            today,
            event.machine
              ? { machine_clicks: 1 }
              : { clicks: 1, unique_clicks: event.unique ? 1 : 0 },
          );
          addCampaign(
            event.message.campaignId,
            event.machine ? { machineClicks: 1 } : { clicks: 1 },
          );
          clicks.push(event);
          break;
        case 'converted':
          // Revenue belongs to the day the purchase happened, not the day it was reported.
          add(utcDay(event.occurredAt), { revenue_cents: event.amountCents });
          if (event.campaignId) {
            addCampaign(event.campaignId, { conversions: 1, revenueCents: event.amountCents });
          }
          break;
      }
    }
    // Lock order: campaign_stats, campaign_links (+ clickers), daily_stats; campaigns in id order.
    for (const id of [...campaigns.keys()].sort()) {
      await this.stats.countCampaign(db, accountId, id, campaigns.get(id)!);
    }
    for (const click of clicks) {
      await this.stats.countLinkClick(
        db,
        accountId,
        click.message.campaignId,
        click.message.subscriberId,
        click.url,
        click.machine,
      );
    }
    if (days.size === 0) return false;
    await this.stats.countDays(
      db,
      accountId,
      days,
      batch ? (first) => this.publisher.alongside(batch, first) : undefined,
    );
    return true;
  }

  // ---- webhooks -----------------------------------------------------------------------------

  /** The batch of webhook events these mail events make, or null when no endpoint wants one. */
  private async outbound(
    db: SqlRunner,
    accountId: AccountId,
    events: MailEvent[],
    at: Date,
  ): Promise<PreparedBatch | null> {
    const wanted = await this.publisher.wantedTypes(accountId, db);
    if (wanted.size === 0) return null;
    const outbound: OutboundEvent[] = [];
    for (const event of events) {
      const type = EVENT_TYPE[event.kind];
      if (type === undefined || !wanted.has(type)) continue;
      if (event.kind === 'unsubscribed') {
        if (!event.subscriberId) continue;
        const subscriber = await this.subjects.get('subscriber')(db, accountId, event.subscriberId);
        if (!subscriber) continue;
        outbound.push({
          type,
          occurredAt: at,
          data: { ...subscriber },
          subscriberId: event.subscriberId,
        });
        continue;
      }
      if (event.kind === 'converted') continue;
      const envelope = await this.envelope(db, accountId, event.message);
      if (!envelope) continue; // the person is gone: an erased identity's events carry nothing
      const extra: Record<string, unknown> = {};
      if (event.kind === 'bounced') {
        extra.reason = event.hard ? 'hard_bounce' : 'soft_bounce';
        extra.status_code = event.statusCode ?? null;
        extra.source = event.source;
      } else if (event.kind === 'complained') {
        extra.reason = 'complaint';
        extra.source = event.source;
      } else if (event.kind === 'opened') {
        extra.machine = event.machine;
      } else if (event.kind === 'clicked') {
        extra.url = event.url;
        extra.machine = event.machine;
      }
      outbound.push({
        type,
        occurredAt: at,
        data: { ...envelope.data, ...extra },
        subscriberId: envelope.subscriberId,
        recipientHash: envelope.recipientHash,
        emailOf: envelope.emailOf,
      });
    }
    return this.publisher.prepare(accountId, outbound, db);
  }

  /**
   * `message_id`, `email`, `subscriber_id`, `campaign_id` of a message's events. A campaign
   * recipient's address is not read here (a round trip per chunk on the send path): the
   * dispatcher fills it in before the first attempt (`emailOf`).
   */
  private async envelope(db: SqlRunner, accountId: AccountId, message: EventMessage) {
    if (isCampaign(message)) {
      const campaign = await this.campaign(db, accountId, message.campaignId);
      if (!campaign) return undefined;
      return {
        data: {
          message_id: messageIdHeader(
            `${message.campaignId}.${message.subscriberId}`,
            campaign.fromAddress,
          ),
          email: null,
          subscriber_id: message.subscriberId,
          campaign_id: message.campaignId,
        },
        subscriberId: message.subscriberId,
        recipientHash: null,
        emailOf: message.subscriberId,
      };
    }
    let messageId = message.messageId ?? null;
    if (!messageId) {
      messageId =
        (await this.subjects.get('transactional')(db, accountId, message.transactionalId))
          ?.messageId ?? null;
    }
    const subscriberId =
      message.subscriberId !== undefined
        ? message.subscriberId
        : await this.subjects.get('subscriberIdByEmail')(db, accountId, message.email);
    return {
      data: {
        message_id: messageId,
        email: message.email,
        subscriber_id: subscriberId,
        campaign_id: null,
      },
      subscriberId,
      recipientHash: this.erasureGuard.emailHash(accountId, message.email),
      emailOf: null,
    };
  }

  private async campaign(db: SqlRunner, accountId: AccountId, id: string) {
    const cached = this.campaigns.get(id);
    if (cached) return cached;
    const found = await this.subjects.get('campaign')(db, accountId, id);
    if (found) {
      if (this.campaigns.size >= CAMPAIGN_CACHE) this.campaigns.clear();
      this.campaigns.set(id, found);
    }
    return found;
  }
}

/**
 * The message log's events of these mail events. A campaign's send events are not among them:
 * they ride on its outcome write (MessageLog.addCampaignOutcomes).
 */
function messageEvents(events: MailEvent[]): NewMessageEvent[] {
  const out: NewMessageEvent[] = [];
  for (const event of events) {
    if (event.kind === 'converted') continue;
    if (event.kind === 'unsubscribed' && !event.message) continue;
    const ref = event.message!;
    const message = isCampaign(ref)
      ? { campaignId: ref.campaignId, subscriberId: ref.subscriberId }
      : { messageId: ref.transactionalId };
    switch (event.kind) {
      case 'sent':
        out.push({ message, type: 'sent' });
        break;
      case 'delivered':
        out.push({ message, type: 'delivered', smtpCode: 250, reason: event.reply ?? null });
        break;
      case 'bounced': {
        const code = /^\d{3}$/.test(event.statusCode ?? '') ? Number(event.statusCode) : null;
        const detail = code === null ? (event.statusCode ?? null) : null;
        out.push({ message, type: 'bounced', smtpCode: code, reason: event.reply ?? detail });
        break;
      }
      case 'complained':
        out.push({ message, type: 'complained', reason: `reported by ${event.source}` });
        break;
      case 'opened':
        out.push({ message, type: 'opened', machine: event.machine });
        break;
      case 'clicked':
        out.push({ message, type: 'clicked', url: event.url, machine: event.machine });
        break;
      case 'unsubscribed':
        out.push({ message, type: 'unsubscribed', reason: event.source });
        break;
    }
  }
  return out;
}

/** `YYYY-MM-DD` in UTC: the statistics' days are UTC days. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
