import { Injectable } from '@nestjs/common';
import type { Campaign } from '../../generated/prisma/client';
import { newId } from '../../platform/crypto/ids';
import type { AccountId } from '../../platform/database/account-id';
import type { ComposedStatement, Relation } from '../../platform/database/composed-statement';
import type { Db } from '../../platform/database/db';
import { PgPool } from '../../platform/database/pg-pool';
import * as sql from './campaign-delivery-runs.sql';

/** The run a delivery job holds: which rows it may claim and write, and for how long. */
export interface RunIdentity {
  id: string;
  accountId: AccountId;
  campaignId: string;
  batch: number;
}

/**
 * campaign_delivery_runs, and the only writer of that table: one row per attempt of a
 * delivery job at a batch, holding the lease that fences its claims and the counts of the
 * outcomes it wrote until they are folded into the campaign's counters.
 */
@Injectable()
export class CampaignDeliveryRunsRepository {
  constructor(private readonly pool: PgPool) {}

  async start(
    accountId: AccountId,
    campaignId: string,
    batch: number,
    leaseSeconds: number,
  ): Promise<RunIdentity> {
    const id = newId();
    await this.pool.query(sql.START_RUN, [id, campaignId, accountId, batch, leaseSeconds]);
    return { id, accountId, campaignId, batch };
  }

  /** Extends the lease; false when it had already lapsed (the run must stop). */
  async renew(run: RunIdentity, leaseSeconds: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(sql.RENEW_RUN, [run.id, leaseSeconds]);
    return rowCount === 1;
  }

  /**
   * Adds the run's part of an outcome write to `statement`: what the ledger part's
   * `outcomes` ended is added to the run's counters.
   */
  addCounts(
    statement: ComposedStatement,
    run: RunIdentity,
    outcomes: Relation<'status' | 'skip_reason' | 'smtp_code' | 'hard_bounce'>,
  ): void {
    statement.with(
      sql.countOutcomesPart({
        outcomes: outcomes.name,
        run: statement.param(run.id),
        campaign: statement.param(run.campaignId),
        account: statement.param(run.accountId),
        batch: statement.param(run.batch),
      }),
    );
  }

  /** The run has ended: its counts move to the campaign and the row goes. */
  async end(run: RunIdentity): Promise<void> {
    await this.pool.query(sql.FOLD_RUN, [run.campaignId, run.accountId, run.id]);
  }

  /** Expired runs of a batch (dead or frozen workers): their counts move to the campaign. */
  async foldExpired(accountId: AccountId, campaignId: string, batch: number): Promise<void> {
    await this.pool.query(sql.FOLD_EXPIRED_OF_BATCH, [campaignId, accountId, batch]);
  }

  /** Every run of the campaign, inside the transaction that completes it. */
  async foldAll(accountId: AccountId, campaignId: string, tx: Db): Promise<void> {
    await tx.$executeRawUnsafe(sql.FOLD_ALL, campaignId, accountId);
  }

  /**
   * The campaigns' counters as they stand (see CURRENT_COUNTERS), per campaign id; with
   * `unfinished`, also how many recipients are not final yet and how many of those are
   * deferred.
   */
  async current(
    accountId: AccountId,
    campaignIds: string[],
    unfinished = false,
  ): Promise<Map<string, CurrentCounters>> {
    if (campaignIds.length === 0) return new Map();
    const { rows } = await this.pool.query<CurrentRow>(sql.CURRENT_COUNTERS, [
      accountId,
      campaignIds,
      unfinished,
    ]);
    return new Map(
      rows.map((row) => [
        row.id,
        {
          counters: {
            recipientCount: row.recipient_count,
            deliveredCount: row.delivered_count,
            failedCount: row.failed_count,
            bounceCount: row.bounce_count,
            softBounceCount: row.soft_bounce_count,
            skippedErasedCount: row.skipped_erased_count,
            skippedUnsubscribedCount: row.skipped_unsubscribed_count,
            skippedBouncedCount: row.skipped_bounced_count,
            skippedComplainedCount: row.skipped_complained_count,
            skippedSuppressedCount: row.skipped_suppressed_count,
            skippedOtherCount: row.skipped_other_count,
          },
          outstanding: row.outstanding ?? 0,
          deferred: row.deferred ?? 0,
        },
      ]),
    );
  }
}

/** The send counters of a campaign row that runs add to. */
export type SendCounters = Pick<
  Campaign,
  | 'recipientCount'
  | 'deliveredCount'
  | 'failedCount'
  | 'bounceCount'
  | 'softBounceCount'
  | 'skippedErasedCount'
  | 'skippedUnsubscribedCount'
  | 'skippedBouncedCount'
  | 'skippedComplainedCount'
  | 'skippedSuppressedCount'
  | 'skippedOtherCount'
>;

export interface CurrentCounters {
  counters: SendCounters;
  outstanding: number;
  deferred: number;
}

interface CurrentRow {
  id: string;
  recipient_count: number;
  delivered_count: number;
  failed_count: number;
  bounce_count: number;
  soft_bounce_count: number;
  skipped_erased_count: number;
  skipped_unsubscribed_count: number;
  skipped_bounced_count: number;
  skipped_complained_count: number;
  skipped_suppressed_count: number;
  skipped_other_count: number;
  outstanding: number | null;
  deferred: number | null;
}
