import { Injectable } from '@nestjs/common';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { runSql } from '../platform/database/sql-runner';
import type { PageRequest } from '../platform/pagination/page-request';
import { WEBHOOK_CLAIM_LEASE_MS, WEBHOOK_DISABLE_AFTER_DAYS } from './webhooks.settings';
import * as sql from './webhooks.sql';

/** A due delivery, claimed for one attempt, with its endpoint's URL and sealed secret. */
export interface ClaimedDelivery {
  id: string;
  accountId: AccountId;
  endpointId: string;
  eventId: string;
  payload: string;
  /** This attempt's number, from 1. */
  attempts: number;
  url: string;
  secretSealed: string;
}

/** What an attempt came to, to write back. */
export interface DeliveryResult {
  id: string;
  endpointId: string;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** When to try again; null when the schedule ran out (or it succeeded). */
  nextAttemptAt: Date | null;
  /** Set for an event's first attempt from a batch: its delivery row is written with it. */
  first?: FirstDelivery;
}

/** A delivery row to write with its first attempt's result. */
export interface FirstDelivery {
  batchId: string;
  accountId: AccountId;
  eventId: string;
  type: string;
  payload: string;
  subscriberId: string | null;
  recipientHash: string | null;
  /** When the event was recorded. */
  createdAt: Date;
  /** 1, or 0 when the endpoint was disabled: the delivery waits, due, as other pending ones. */
  attempts: number;
  /** Not written at all: the subscriber the event is about was gone before its first attempt. */
  void?: boolean;
}

/**
 * webhook_deliveries (and the health columns of webhook_endpoints the attempts move) for the
 * dispatcher and the delivery log. A delivery row is written with its first attempt, from the
 * batch WebhookPublisher wrote (the one way in); the SQL is in webhooks.sql.ts. Claims and
 * results run on PgPool: they are the busy path.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(
    private readonly pool: PgPool,
    private readonly prisma: PrismaService,
  ) {}

  /** Due deliveries of every account (the dispatcher serves them all). */
  async claimDueAcrossAccounts(limit: number): Promise<ClaimedDelivery[]> {
    const rows = await runSql<{
      id: string;
      account_id: string;
      endpoint_id: string;
      event_id: string;
      payload: string | null;
      attempts: number;
      url: string;
      secret_sealed: string;
    }>(this.pool, sql.CLAIM_DUE, [limit, WEBHOOK_CLAIM_LEASE_MS]);
    return rows
      .filter((row) => row.payload !== null)
      .map((row) => ({
        id: row.id,
        accountId: accountIdOfRow(row.account_id),
        endpointId: row.endpoint_id,
        eventId: row.event_id,
        payload: row.payload!,
        attempts: row.attempts,
        url: row.url,
        secretSealed: row.secret_sealed,
      }));
  }

  /**
   * Writes attempts' results and the endpoints' health in one transaction: first attempts as
   * new delivery rows (those still pending in their batch: an erasure may have taken some out
   * meanwhile) and later ones onto their rows. Returns the endpoints this disabled (failing for
   * longer than WEBHOOK_DISABLE_AFTER_DAYS). Locks go batches, deliveries, endpoints, each in
   * id order, as an erasure's do.
   */
  async writeResults(results: DeliveryResult[]): Promise<string[]> {
    if (results.length === 0) return [];
    return this.pool.transaction(async (client) => {
      const firsts = results.filter((r) => r.first);
      const written = firsts.length > 0 ? await this.writeFirsts(client, firsts) : [];
      const later = results.filter((r) => !r.first);
      if (later.length > 0) {
        await client.query(sql.WRITE_RESULTS, [
          later.map((r) => r.id),
          later.map((r) => r.ok),
          later.map((r) => r.status),
          later.map((r) => r.latencyMs),
          later.map((r) => r.error),
          later.map((r) => r.nextAttemptAt),
        ]);
      }
      const attempted = [...later, ...written.filter((r) => r.first!.attempts > 0)];
      const succeeded = [...new Set(attempted.filter((r) => r.ok).map((r) => r.endpointId))];
      succeeded.sort();
      if (succeeded.length > 0) await client.query(sql.ENDPOINTS_SUCCEEDED, [succeeded]);
      // One entry per failing endpoint (its last error), in id order: no two writers deadlock.
      const failing = new Map<string, string>();
      for (const r of attempted) {
        if (!r.ok && !succeeded.includes(r.endpointId)) failing.set(r.endpointId, r.error ?? '');
      }
      if (failing.size === 0) return [];
      const ids = [...failing.keys()].sort();
      const { rows } = await client.query<{ id: string; enabled: boolean }>(sql.ENDPOINTS_FAILED, [
        ids,
        WEBHOOK_DISABLE_AFTER_DAYS,
        ids.map((id) => failing.get(id)),
      ]);
      return rows.filter((row) => !row.enabled).map((row) => row.id);
    });
  }

  /** Inserts first attempts still pending in their batches; returns those written. */
  private async writeFirsts(client: PgClient, firsts: DeliveryResult[]) {
    const batchIds = [...new Set(firsts.map((r) => r.first!.batchId))];
    const { rows } = await client.query<{ id: string; pending_ids: string[] }>(sql.LOCK_BATCHES, [
      batchIds,
    ]);
    const pending = new Map(rows.map((row) => [row.id, new Set(row.pending_ids)]));
    const written = firsts.filter(
      (r) => !r.first!.void && pending.get(r.first!.batchId)?.has(r.id),
    );
    if (written.length > 0) {
      const column = <T>(pick: (r: DeliveryResult, first: FirstDelivery) => T) =>
        written.map((r) => pick(r, r.first!));
      await client.query(sql.INSERT_ATTEMPTED, [
        column((_, f) => f.accountId),
        column((r) => r.id),
        column((r) => r.endpointId),
        column((_, f) => f.eventId),
        column((_, f) => f.type),
        column((_, f) => f.payload),
        column((_, f) => f.subscriberId),
        column((_, f) => f.recipientHash),
        column((r, f) => deliveryStatus(r, f)),
        column((_, f) => f.attempts),
        column((r) => (r.ok ? null : r.nextAttemptAt)),
        column((r) => r.status),
        column((r, f) => (f.attempts > 0 ? r.latencyMs : null)),
        column((r) => r.error),
        column((_, f) => f.createdAt),
      ]);
    }
    for (const batchId of [...pending.keys()].sort()) {
      const ids = firsts.filter((r) => r.first!.batchId === batchId).map((r) => r.id);
      await client.query(sql.SHRINK_BATCH, [batchId, ids]);
    }
    await client.query(sql.DELETE_DONE_BATCHES, [[...pending.keys()]]);
    return written;
  }
  /** A page of an endpoint's delivery log, newest first. */
  page(accountId: AccountId, endpointId: string, page: PageRequest) {
    return this.prisma.webhookDelivery.findMany({
      where: {
        accountId,
        endpointId,
        ...(page.afterId ? { id: { lt: page.afterId } } : {}),
      },
      orderBy: { id: 'desc' },
      take: page.limit,
      select: DELIVERY_FIELDS,
    });
  }

  find(accountId: AccountId, endpointId: string, id: string) {
    return this.prisma.webhookDelivery.findFirst({
      where: { accountId, endpointId, id },
      select: { ...DELIVERY_FIELDS, payload: true },
    });
  }

  /** Due at once; false when the delivery has no payload any more (its person was erased). */
  async retryNow(accountId: AccountId, endpointId: string, id: string): Promise<boolean> {
    const rows = await runSql(this.prisma, sql.RETRY_NOW, [accountId, endpointId, id]);
    return rows.length === 1;
  }

  /** Erasure: the person's deliveries lose their payload; pending ones will not be made. */
  async scrub(tx: Db, accountId: AccountId, subscriberId: string | null, recipientHash: string) {
    await runSql(tx, sql.SCRUB_DELIVERIES, [accountId, subscriberId, recipientHash]);
  }

  /** Deletes finished deliveries older than `days` (at most `limit`), across accounts. */
  async pruneFinishedAcrossAccounts(days: number, limit: number): Promise<number> {
    const result = await this.pool.query(sql.PRUNE_FINISHED, [days, limit]);
    return result.rowCount ?? 0;
  }
}

function deliveryStatus(result: DeliveryResult, first: FirstDelivery): string {
  if (result.ok) return 'succeeded';
  return first.attempts > 0 && result.nextAttemptAt === null ? 'failed' : 'pending';
}

export const DELIVERY_FIELDS = {
  id: true,
  eventId: true,
  type: true,
  status: true,
  attempts: true,
  responseStatus: true,
  latencyMs: true,
  lastError: true,
  nextAttemptAt: true,
  createdAt: true,
} as const;
