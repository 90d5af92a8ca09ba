import { Injectable } from '@nestjs/common';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { runSql } from '../platform/database/sql-runner';
import type { PageRequest } from '../platform/pagination/page-request';
import { WEBHOOK_CLAIM_LEASE_MS, WEBHOOK_DISABLE_AFTER_DAYS } from '../platform/settings';
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
}

/**
 * webhook_deliveries (and the health columns of webhook_endpoints the attempts move) for the
 * dispatcher and the delivery log. Inserts are WebhookPublisher's (the one way in); the SQL
 * is in webhooks.sql.ts. Claims and results run on PgPool: they are the busy path.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(
    private readonly pool: PgPool,
    private readonly prisma: PrismaService,
  ) {}

  /** Due deliveries of every account (the dispatcher serves them all). */
  async claimDue(limit: number): Promise<ClaimedDelivery[]> {
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
   * Writes attempts' results and the endpoints' health in one transaction. Returns the
   * endpoints this disabled (failing for longer than WEBHOOK_DISABLE_AFTER_DAYS).
   */
  async writeResults(results: DeliveryResult[]): Promise<string[]> {
    if (results.length === 0) return [];
    return this.pool.transaction(async (client) => {
      await client.query(sql.WRITE_RESULTS, [
        results.map((r) => r.id),
        results.map((r) => r.ok),
        results.map((r) => r.status),
        results.map((r) => r.latencyMs),
        results.map((r) => r.error),
        results.map((r) => r.nextAttemptAt),
      ]);
      const succeeded = [...new Set(results.filter((r) => r.ok).map((r) => r.endpointId))].sort();
      if (succeeded.length > 0) await client.query(sql.ENDPOINTS_SUCCEEDED, [succeeded]);
      // One entry per failing endpoint (its last error), in id order: no two writers deadlock.
      const failing = new Map<string, string>();
      for (const r of results) {
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
  async pruneFinished(days: number, limit: number): Promise<number> {
    const result = await this.pool.query(sql.PRUNE_FINISHED, [days, limit]);
    return result.rowCount ?? 0;
  }
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
