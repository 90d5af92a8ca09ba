import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import * as sql from './campaign-ledger.sql';
import type { SmtpRetryPolicy } from '../platform/config/config';
import type { RunIdentity } from './campaign-delivery-runs.repository';
import type { FinalOutcome, Outcome } from './recipient-outcome';

/** What one snapshotted keyset batch of the audience put into the ledger. */
export interface SnapshottedBatch {
  /** Subscribers the audience query matched (inserted or already there). */
  matched: number;
  /** The last subscriber id read: the next checkpoint. */
  lastId: string | null;
  pending: number;
  unsubscribed: number;
  bounced: number;
  complained: number;
  suppressed: number;
  /** Delivery batches that received at least one pending recipient. */
  batches: number[];
}

/**
 * The send ledger, campaign_recipients: one row per campaign and audience member, and the
 * only writer of that table. Statements are written so that a retried or duplicated job
 * changes nothing twice: inserts skip existing rows, claims and outcomes are conditional on
 * the row's current status. The SQL is in campaign-ledger.sql.ts.
 */
@Injectable()
export class CampaignLedgerRepository {
  constructor(
    private readonly prisma: PrismaService,
    /** For the per-chunk statements (claim, outcomes): see docs/decisions.md. */
    private readonly pool: PgPool,
  ) {}

  /**
   * Inserts the next keyset batch of the audience after the checkpoint, inside the fan-out's
   * transaction (which also advances the checkpoint). Recipients are numbered into delivery
   * batches of `deliverySize` from `checkpoint.base`; the primary key keeps anyone from being
   * inserted twice.
   */
  async snapshot(
    accountId: AccountId,
    campaignId: string,
    checkpoint: { afterId: string; base: number },
    audience: Prisma.Sql,
    size: number,
    deliverySize: number,
    tx: Db,
  ): Promise<SnapshottedBatch> {
    const [row] = await tx.$queryRaw<SnapshotRow[]>(
      sql.snapshotAudience(accountId, campaignId, checkpoint, audience, size, deliverySize),
    );
    return {
      matched: row.matched,
      lastId: row.last_id,
      pending: row.pending,
      unsubscribed: row.unsubscribed,
      bounced: row.bounced,
      complained: row.complained,
      suppressed: row.suppressed,
      batches: row.batches,
    };
  }

  /** How many of these subscribers have no row in the campaign's ledger. */
  async countMissing(
    accountId: AccountId,
    campaignId: string,
    subscriberIds: string[],
    tx: Db,
  ): Promise<number> {
    if (subscriberIds.length === 0) return 0;
    const [row] = await tx.$queryRaw<{ count: number }[]>(
      sql.countNotInLedger(accountId, campaignId, subscriberIds),
    );
    return row?.count ?? 0;
  }

  /** Batches with recipients still to send: their delivery jobs may need enqueuing again. */
  async unfinishedBatches(accountId: AccountId, campaignId: string): Promise<number[]> {
    const rows = await this.prisma.$queryRaw<{ batch: number }[]>(
      sql.unfinishedBatches(accountId, campaignId),
    );
    return rows.map((row) => row.batch);
  }

  /**
   * Claims up to `limit` of the batch's claimable rows for the run (pending, deferred and
   * due, or held by a run whose lease expired), only while its lease holds: the conditional
   * UPDATE is what guarantees that no two runs ever hold the same row. Returns the ids and
   * how many were taken over from an expired run.
   */
  async claim(run: RunIdentity, limit: number): Promise<{ ids: string[]; takenOver: number }> {
    const { rows } = await this.pool.query<{ subscriber_id: string; taken_over: boolean }>(
      sql.CLAIM,
      [run.campaignId, run.batch, run.accountId, limit, run.id],
    );
    return {
      ids: rows.map((row) => row.subscriber_id),
      takenOver: rows.filter((row) => row.taken_over).length,
    };
  }

  /**
   * Writes final outcomes onto rows the run still holds, inside the outcome transaction;
   * returns the subscriber ids actually written, so counters count each once.
   */
  async writeOutcomes(
    run: RunIdentity,
    outcomes: FinalOutcome[],
    client: PgClient,
  ): Promise<Set<string>> {
    if (outcomes.length === 0) return new Set();
    const { rows } = await client.query<{ id: string }>(sql.WRITE_OUTCOMES, [
      run.campaignId,
      run.accountId,
      outcomes.map((o) => o.subscriberId),
      outcomes.map((o) =>
        o.kind === 'delivered' ? 'sent' : o.kind === 'failed' ? 'failed' : 'skipped',
      ),
      outcomes.map((o) => (o.kind === 'skipped' ? o.reason : null)),
      outcomes.map((o) => (o.kind === 'failed' ? (o.smtpCode ?? null) : null)),
      outcomes.map((o) => (o.kind === 'failed' ? (o.reason ?? null) : null)),
      run.id,
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Temporary refusals of rows the run holds: each waits for its next try (see
   * SmtpRetryPolicy), or fails once its first refusal is older than the horizon. Returns the
   * ones that failed, as outcomes to count.
   */
  async defer(
    run: RunIdentity,
    deferrals: Outcome[],
    policy: SmtpRetryPolicy,
    client: PgClient,
  ): Promise<FinalOutcome[]> {
    if (deferrals.length === 0) return [];
    const { rows } = await client.query<{ id: string; status: string; code: number | null }>(
      sql.DEFER,
      [
        run.campaignId,
        run.accountId,
        deferrals.map((o) => o.subscriberId),
        deferrals.map((o) => (o.kind === 'deferred' ? (o.smtpCode ?? null) : null)),
        run.id,
        policy.firstSeconds,
        policy.maxSeconds,
        policy.horizonSeconds,
      ],
    );
    return rows
      .filter((row) => row.status === 'failed')
      .map((row) => ({
        subscriberId: row.id,
        kind: 'failed',
        hardBounce: false,
        smtpCode: row.code ?? undefined,
      }));
  }

  /**
   * When the batch next needs a delivery run: now (rows claimable at once), the earliest
   * deferred try, or when a live run's lease ends; undefined when every row is final.
   */
  async nextWake(
    accountId: AccountId,
    campaignId: string,
    batch: number,
  ): Promise<Date | undefined> {
    const { rows } = await this.pool.query<{ wake: Date | null }>(sql.NEXT_WAKE, [
      campaignId,
      batch,
      accountId,
    ]);
    return rows[0]?.wake ?? undefined;
  }

  /**
   * Erasure: the person's pending rows become `skipped` (erased), inside the erasing
   * transaction, so no worker claims them afterwards. Returns how many per campaign, in
   * campaign id order.
   */
  skipErased(
    accountId: AccountId,
    subscriberId: string,
    tx: Db,
  ): Promise<{ campaign_id: string; count: number }[]> {
    return tx.$queryRaw(sql.skipPendingOfErased(accountId, subscriberId));
  }

  /**
   * Cancellation: the campaign's pending and deferred rows become `skipped` (cancelled) inside the
   * cancelling transaction, so no worker claims them afterwards; rows already claimed finish.
   */
  cancelPending(accountId: AccountId, campaignId: string, tx: Db): Promise<number> {
    return tx.$executeRaw(sql.cancelPending(accountId, campaignId));
  }

  /** Stamps a recipient's first open or click; false when it was not the first. */
  async markFirstActivity(
    accountId: AccountId,
    campaignId: string,
    subscriberId: string,
    kind: sql.ActivityKind,
    tx: Db,
  ): Promise<boolean> {
    const updated = await tx.$executeRaw(
      sql.markFirstActivity(kind, accountId, campaignId, subscriberId),
    );
    return updated > 0;
  }
}

interface SnapshotRow {
  matched: number;
  last_id: string | null;
  pending: number;
  unsubscribed: number;
  bounced: number;
  complained: number;
  suppressed: number;
  batches: number[];
}
