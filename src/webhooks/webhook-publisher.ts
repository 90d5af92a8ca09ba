import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import { PgPool } from '../platform/database/pg-pool';
import { runSql, SqlRunner } from '../platform/database/sql-runner';
import { WEBHOOK_ENDPOINTS_CACHE_MS } from '../platform/settings';
import { BatchedEvent } from './webhook-event-batch';
import { OutboundEvent, WebhookEventType } from './webhook-event-types';
import * as sql from './webhooks.sql';

interface EndpointInterest {
  id: string;
  events: string[];
}

/**
 * The way into outbound webhooks: writes the events, with the endpoints that want each, as one
 * webhook_event_batches row in the caller's transaction (the one that records the events), so
 * an event is delivered if and only if what it reports was recorded. A whole chunk of events is
 * one INSERT of one row, whatever the number of events and endpoints: the delivery rows are
 * the dispatcher's, written with their first attempt. Accounts without endpoints cost one
 * cached lookup and nothing else.
 */
@Injectable()
export class WebhookPublisher {
  private readonly interests = new Map<string, { at: number; endpoints: EndpointInterest[] }>();
  /** Emits `published` after a batch was written, so a dispatcher in this process looks at once. */
  readonly signal = new EventEmitter();

  constructor(private readonly pool: PgPool) {}

  /** Whether any enabled endpoint of the account wants events of this type. */
  async wants(accountId: AccountId, type: WebhookEventType): Promise<boolean> {
    const endpoints = await this.endpointsOf(accountId);
    return endpoints.some((endpoint) => endpoint.events.includes(type));
  }

  /** The types some endpoint of the account wants. */
  async wantedTypes(accountId: AccountId): Promise<Set<string>> {
    return new Set((await this.endpointsOf(accountId)).flatMap((endpoint) => endpoint.events));
  }

  async publish(db: SqlRunner, accountId: AccountId, events: OutboundEvent[]): Promise<void> {
    if (events.length === 0) return;
    const endpoints = await this.endpointsOf(accountId);
    if (endpoints.length === 0) return;
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
        deliveries,
      });
    }
    if (batch.length === 0) return;
    await runSql(db, sql.INSERT_BATCH, [newId(), accountId, JSON.stringify(batch), deliveryIds]);
    // The row is visible once the caller commits; a dispatcher nudged a moment early
    // finds it on its next look.
    setTimeout(() => this.signal.emit('published'), 20).unref();
  }

  /** After an endpoint of this account was created, changed or deleted in this process. */
  forget(accountId: AccountId): void {
    this.interests.delete(accountId);
  }

  /**
   * Cached briefly per account: events are published on the send hot path, endpoints change
   * rarely. Another process's change is seen within WEBHOOK_ENDPOINTS_CACHE_MS.
   */
  private async endpointsOf(accountId: AccountId): Promise<EndpointInterest[]> {
    const cached = this.interests.get(accountId);
    if (cached && Date.now() - cached.at < WEBHOOK_ENDPOINTS_CACHE_MS) return cached.endpoints;
    const endpoints = await runSql<EndpointInterest>(this.pool, sql.ENABLED_ENDPOINTS, [accountId]);
    if (this.interests.size > 10_000) this.interests.clear();
    this.interests.set(accountId, { at: Date.now(), endpoints });
    return endpoints;
  }
}
