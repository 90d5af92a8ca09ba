import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import * as sql from './campaign-ledger.sql';
import type { FinalOutcome } from './recipient-outcome';

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

  /** Recipients not yet finished (pending or in flight): the live part of the progress. */
  async outstanding(accountId: AccountId, campaignId: string): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ count: bigint }[]>(
      sql.outstanding(accountId, campaignId),
    );
    return Number(row?.count ?? 0);
  }

  /**
   * Claims left by an earlier attempt of this batch's job go back to pending. Only one attempt
   * of a job runs at a time (BullMQ's job lock), so a claim found when the job starts belongs
   * to an attempt that died: its outcome is unknown and the recipient is sent again (see
   * docs/decisions.md, "A crash mid-send").
   */
  releaseClaims(accountId: AccountId, campaignId: string, batch: number): Promise<number> {
    return this.prisma.$executeRaw(sql.releaseClaims(accountId, campaignId, batch));
  }

  /**
   * Moves up to `limit` pending recipients of the batch to `sending` and returns them: the
   * conditional UPDATE is what guarantees that no two workers ever send to the same row.
   */
  async claim(
    accountId: AccountId,
    campaignId: string,
    batch: number,
    limit: number,
  ): Promise<string[]> {
    const { rows } = await this.pool.query<{ subscriber_id: string }>(sql.CLAIM, [
      campaignId,
      batch,
      accountId,
      limit,
    ]);
    return rows.map((row) => row.subscriber_id);
  }

  /**
   * Writes final outcomes onto rows still claimed (`sending`), inside the outcome
   * transaction; returns the subscriber ids actually written, so counters count each once.
   */
  async writeOutcomes(
    accountId: AccountId,
    campaignId: string,
    outcomes: FinalOutcome[],
    client: PgClient,
  ): Promise<Set<string>> {
    if (outcomes.length === 0) return new Set();
    const { rows } = await client.query<{ id: string }>(sql.WRITE_OUTCOMES, [
      campaignId,
      accountId,
      outcomes.map((o) => o.subscriberId),
      outcomes.map((o) =>
        o.kind === 'delivered' ? 'sent' : o.kind === 'failed' ? 'failed' : 'skipped',
      ),
      outcomes.map((o) => (o.kind === 'skipped' ? o.reason : null)),
      outcomes.map((o) => (o.kind === 'failed' ? (o.smtpCode ?? null) : null)),
      outcomes.map((o) => (o.kind === 'failed' ? (o.reason ?? null) : null)),
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** Keeps a deferral's SMTP code on its still-claimed row. */
  async noteDeferral(
    accountId: AccountId,
    campaignId: string,
    subscriberId: string,
    smtpCode: number,
    client: PgClient,
  ): Promise<void> {
    await client.query(sql.NOTE_DEFERRAL, [campaignId, subscriberId, smtpCode, accountId]);
  }

  /** Deferred recipients of a finished attempt become pending again, for the retry. */
  async releaseDeferred(
    accountId: AccountId,
    campaignId: string,
    subscriberIds: string[],
  ): Promise<void> {
    if (subscriberIds.length === 0) return;
    await this.prisma.$executeRaw(sql.releaseDeferred(accountId, campaignId, subscriberIds));
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
   * Cancellation: the campaign's pending rows become `skipped` (cancelled) inside the
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
