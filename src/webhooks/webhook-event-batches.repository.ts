import { Injectable } from '@nestjs/common';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { runSql } from '../platform/database/sql-runner';
import { WEBHOOK_CLAIM_LEASE_MS } from './webhooks.settings';
import { BatchedEvent, concerns, parseBatch } from './webhook-event-batch';
import * as sql from './webhooks.sql';

/** A batch claimed by this process: its events and the delivery ids still to write. */
export interface ClaimedBatch {
  id: string;
  accountId: AccountId;
  createdAt: Date;
  events: BatchedEvent[];
  pending: Set<string>;
}

/** An endpoint as a batch's first attempts need it. */
export interface BatchEndpoint {
  id: string;
  url: string;
  secretSealed: string;
  enabled: boolean;
}

/**
 * webhook_event_batches, the events not yet attempted: rows are WebhookPublisher's to insert
 * and WebhookDeliveriesRepository's to shrink as the first attempts' results are written; here
 * the dispatcher claims them and holds its lease, and an erasure takes the person's events
 * out.
 */
@Injectable()
export class WebhookEventBatchesRepository {
  constructor(private readonly pool: PgPool) {}

  async claimAcrossAccounts(limit: number): Promise<ClaimedBatch[]> {
    const rows = await runSql<{
      id: string;
      account_id: string;
      events: string;
      pending_ids: string[];
      created_at: Date;
    }>(this.pool, sql.CLAIM_BATCHES, [limit, WEBHOOK_CLAIM_LEASE_MS]);
    return rows.map((row) => ({
      id: row.id,
      accountId: accountIdOfRow(row.account_id),
      createdAt: row.created_at,
      events: parseBatch(row.events),
      pending: new Set(row.pending_ids),
    }));
  }

  async endpointsAcrossAccounts(ids: string[]): Promise<Map<string, BatchEndpoint>> {
    const rows = await runSql<{ id: string; url: string; secret_sealed: string; enabled: boolean }>(
      this.pool,
      sql.ENDPOINTS_BY_ID,
      [ids],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        { id: row.id, url: row.url, secretSealed: row.secret_sealed, enabled: row.enabled },
      ]),
    );
  }

  async renew(ids: string[]): Promise<void> {
    if (ids.length > 0) await runSql(this.pool, sql.RENEW_BATCHES, [ids, WEBHOOK_CLAIM_LEASE_MS]);
  }

  /** Batches left with nothing to write (every endpoint they named is gone). */
  async deleteIfDone(ids: string[]): Promise<void> {
    if (ids.length > 0) await runSql(this.pool, sql.DELETE_DONE_BATCHES, [ids]);
  }

  async release(ids: string[]): Promise<void> {
    if (ids.length > 0) await runSql(this.pool, sql.RELEASE_BATCHES, [ids]);
  }

  /**
   * Erasure: the person's events leave the batches not yet worked through, so they are never
   * attempted (a dispatcher already holding them writes no delivery row for them: their ids are
   * no longer pending); the delivery log keeps that they were withheld, without the payload.
   * Locks the batches in id order, before any delivery row, as the result writer does.
   */
  async scrub(tx: Db, accountId: AccountId, subscriberId: string | null, recipientHash: string) {
    const rows = await runSql<{
      id: string;
      events: string;
      pending_ids: string[];
      created_at: Date;
    }>(tx, sql.BATCHES_MENTIONING, [accountId, subscriberId, recipientHash]);
    const withheld = {
      ids: [] as string[],
      endpoints: [] as string[],
      events: [] as string[],
      types: [] as string[],
      createdAt: [] as Date[],
    };
    for (const row of rows) {
      const events = parseBatch(row.events);
      const kept = events.filter((event) => !concerns(event, subscriberId, recipientHash));
      if (kept.length === events.length) continue;
      const pending = new Set(row.pending_ids);
      for (const event of events) {
        if (!concerns(event, subscriberId, recipientHash)) continue;
        for (const [id, endpointId] of event.deliveries) {
          if (!pending.delete(id)) continue; // already attempted: the row is scrubbed instead
          withheld.ids.push(id);
          withheld.endpoints.push(endpointId);
          withheld.events.push(event.event_id);
          withheld.types.push(event.type);
          withheld.createdAt.push(row.created_at);
        }
      }
      await runSql(tx, sql.REWRITE_BATCH, [row.id, JSON.stringify(kept), [...pending]]);
      if (pending.size === 0) await runSql(tx, sql.DELETE_DONE_BATCHES, [[row.id]]);
    }
    if (withheld.ids.length === 0) return;
    await runSql(tx, sql.INSERT_WITHHELD, [
      accountId,
      withheld.ids,
      withheld.endpoints,
      withheld.events,
      withheld.types,
      withheld.createdAt,
    ]);
  }
}
