import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import { PgPool } from '../platform/database/pg-pool';
import { runSql, SqlRunner } from '../platform/database/sql-runner';
import { WEBHOOK_ENDPOINTS_CACHE_MS } from './webhooks.settings';
import { BatchedEvent } from './webhook-event-batch';
import { OutboundEvent, WebhookEventType } from './webhook-event-types';
import * as sql from './webhooks.sql';

interface EndpointInterest {
  id: string;
  events: string[];
}

/** The addresses of these subscribers (those that still exist), for events that name them. */
export type AddressLookup = (
  db: SqlRunner,
  accountId: AccountId,
  ids: string[],
) => Promise<Map<string, string>>;

/** A batch of events ready to be written: the webhook_event_batches row. */
export interface PreparedBatch {
  id: string;
  accountId: AccountId;
  events: string;
  deliveryIds: string[];
}

/**
 * The way into outbound webhooks: writes the events, with the endpoints that want each, as one
 * webhook_event_batches row in the caller's transaction (the one that records the events), so
 * an event is delivered if and only if what it reports was recorded. A whole chunk of events is
 * one row, whatever the number of events and endpoints, and its INSERT can ride on a statement
 * the caller runs anyway (`alongside`): the delivery rows are the dispatcher's, written with
 * their first attempt. Accounts without endpoints cost one cached lookup and nothing else.
 */
@Injectable()
export class WebhookPublisher {
  private readonly interests = new Map<string, { at: number; endpoints: EndpointInterest[] }>();
  /** Emits `published` after a batch was written, so a dispatcher in this process looks at once. */
  readonly signal = new EventEmitter();
  private addressLookup: AddressLookup | undefined;

  constructor(private readonly pool: PgPool) {}

  /**
   * Whether any enabled endpoint of the account wants events of this type. Inside a
   * transaction, pass it as `db` (here and below): a lookup on a second pool connection while
   * the transaction holds one deadlocks the pool once enough requests do it at once.
   */
  async wants(accountId: AccountId, type: WebhookEventType, db?: SqlRunner): Promise<boolean> {
    const endpoints = await this.endpointsOf(accountId, db);
    return endpoints.some((endpoint) => endpoint.events.includes(type));
  }

  /** The types some endpoint of the account wants. */
  async wantedTypes(accountId: AccountId, db?: SqlRunner): Promise<Set<string>> {
    const endpoints = await this.endpointsOf(accountId, db);
    return new Set(endpoints.flatMap((endpoint) => endpoint.events));
  }

  async publish(db: SqlRunner, accountId: AccountId, events: OutboundEvent[]): Promise<void> {
    const batch = await this.prepare(accountId, events, db);
    if (!batch) return;
    await this.write(db, batch);
    this.published();
  }

  /** Writes a prepared batch in the caller's transaction (then `published`). */
  async write(db: SqlRunner, batch: PreparedBatch): Promise<void> {
    await runSql(db, sql.INSERT_BATCH, [
      batch.id,
      batch.accountId,
      batch.events,
      batch.deliveryIds,
    ]);
  }

  /**
   * The batch of these events for the endpoints that want them; null when none does. Writing
   * it is the caller's: `publish`, or `alongside` a statement of its own, then `published`.
   */
  async prepare(
    accountId: AccountId,
    events: OutboundEvent[],
    db?: SqlRunner,
  ): Promise<PreparedBatch | null> {
    if (events.length === 0) return null;
    const endpoints = await this.endpointsOf(accountId, db);
    if (endpoints.length === 0) return null;
    const batch: BatchedEvent[] = [];
    const deliveryIds: string[] = [];
    for (const event of events) {
      const wanting = endpoints.filter((endpoint) => endpoint.events.includes(event.type));
      if (wanting.length === 0) continue;
      const deliveries = wanting.map((endpoint): [string, string] => [newId(), endpoint.id]);
      for (const [id] of deliveries) deliveryIds.push(id);
      batch.push({
        // One event id for every endpoint: the webhook-id.
        event_id: newId(),
        type: event.type,
        // The Standard Webhooks layout.
        payload: JSON.stringify({
          type: event.type,
          timestamp: event.occurredAt.toISOString(),
          data: event.data,
        }),
        subscriber_id: event.subscriberId ?? null,
        recipient_hash: event.recipientHash ?? null,
        email_of: event.emailOf ?? null,
        deliveries,
      });
    }
    if (batch.length === 0) return null;
    return { id: newId(), accountId, events: JSON.stringify(batch), deliveryIds };
  }

  /**
   * The batch's INSERT as a data-modifying WITH item, to put in front of a statement the caller
   * runs in its transaction anyway (one round trip fewer on a hot path); its parameters follow
   * the statement's own, from `$first` on.
   */
  alongside(batch: PreparedBatch, first: number): { withItem: string; params: unknown[] } {
    return {
      withItem: sql.insertBatchAlongside(first),
      params: [batch.id, batch.accountId, batch.events, batch.deliveryIds],
    };
  }

  /** After a batch was written: the dispatcher of this process looks once it is committed. */
  published(): void {
    // The row is visible once the caller commits; a dispatcher nudged a moment early finds it
    // on its next look.
    setTimeout(() => this.signal.emit('published'), 20).unref();
  }

  /**
   * Events about a campaign's recipient carry their address, which the publishing transaction
   * does not read (a round trip on the send path): it is filled in when the event's first
   * attempt is prepared, through the lookup the module that owns subscribers provides.
   */
  provideAddresses(lookup: AddressLookup): void {
    this.addressLookup = lookup;
  }

  addressesOf(accountId: AccountId, ids: string[]): Promise<Map<string, string>> {
    if (!this.addressLookup) throw new Error('No module provides subscriber addresses');
    return this.addressLookup(this.pool, accountId, ids);
  }

  /** After an endpoint of this account was created, changed or deleted in this process. */
  forget(accountId: AccountId): void {
    this.interests.delete(accountId);
  }

  /**
   * Cached briefly per account: events are published on the send hot path, endpoints change
   * rarely. Another process's change is seen within WEBHOOK_ENDPOINTS_CACHE_MS. A miss reads
   * through the caller's transaction when there is one.
   */
  private async endpointsOf(accountId: AccountId, db: SqlRunner = this.pool) {
    const cached = this.interests.get(accountId);
    if (cached && Date.now() - cached.at < WEBHOOK_ENDPOINTS_CACHE_MS) return cached.endpoints;
    const endpoints = await runSql<EndpointInterest>(db, sql.ENABLED_ENDPOINTS, [accountId]);
    if (this.interests.size > 10_000) this.interests.clear();
    this.interests.set(accountId, { at: Date.now(), endpoints });
    return endpoints;
  }
}
