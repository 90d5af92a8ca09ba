import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import {
  type ComposedStatement,
  relation,
  type Relation,
} from '../../platform/database/composed-statement';
import type { Db } from '../../platform/database/db';
import { PgPool } from '../../platform/database/pg-pool';
import { PrismaService } from '../../platform/database/prisma.service';
import * as sql from './campaign-ledger.sql';
import type { SmtpRetryPolicy } from '../../platform/config/config';
import type { RunIdentity } from './campaign-delivery-runs.repository';
import type { FinalOutcome, Outcome } from './recipient-outcome';

/** What one snapshotted keyset batch of the audience put into the ledger. */
export interface SnapshottedBatch {
  /** Subscribers the audience query matched (inserted or already there). */
  matched: number;
  /** The last subscriber id read: the next checkpoint. */
  lastId: string | null;
  intake: sql.LedgerIntake;
  /** Delivery batches that received at least one pending recipient. */
  batches: number[];
}

/** The rows an outcome write ended (`outcomes` of outcomesPart). */
export type EndedRows = Relation<
  'subscriber_id' | 'status' | 'skip_reason' | 'smtp_code' | 'hard_bounce'
>;
/** The messages of an outcome write the relay answered for good (`sends` of outcomesPart). */
export type FinalSends = Relation<'subscriber_id' | 'delivered' | 'hard_bounce' | 'soft_bounce'>;
/** Every row an outcome write wrote, deferrals included (`logged` of outcomesPart). */
export type WrittenRows = Relation<'subscriber_id' | 'status' | 'skip_reason' | 'smtp_code'>;
const ENDED_ROWS: EndedRows = relation('outcomes');
const WRITTEN_ROWS: WrittenRows = relation('logged');
const FINAL_SENDS: FinalSends = relation('sends');

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
  async snapshot(slice: sql.AudienceSlice, tx: Db): Promise<SnapshottedBatch> {
    const [row] = await tx.$queryRaw<SnapshotRow[]>(sql.snapshotAudience(slice));
    const { matched, last_id, batches, ...intake } = row;
    return { matched, lastId: last_id, intake, batches };
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
   * After a run a pause halted has settled everything in flight: its claims still `sending`
   * never reached the relay, so they become pending again (see RELEASE_UNSENT).
   */
  async releaseUnsent(run: RunIdentity): Promise<void> {
    await this.pool.query(sql.RELEASE_UNSENT, [run.campaignId, run.batch, run.accountId, run.id]);
  }

  /**
   * Adds the ledger's part of an outcome write to `statement` (see outcomesPart): the final
   * outcomes written onto the rows the run still holds, the temporary refusals deferred, and
   * the relations `outcomes` (every row that ended), `sends` (the messages the relay
   * answered for good) and `logged` (every row written) that the other parts read.
   */
  addOutcomes(
    statement: ComposedStatement,
    run: RunIdentity,
    outcomes: Outcome[],
    policy: SmtpRetryPolicy,
  ): { outcomes: EndedRows; sends: FinalSends; logged: WrittenRows } {
    const final = outcomes.filter((o): o is FinalOutcome => o.kind !== 'deferred');
    const deferred = outcomes.filter((o) => o.kind === 'deferred');
    const p = (value: unknown) => statement.param(value);
    const finals =
      final.length === 0
        ? {}
        : {
            ids: p(final.map((o) => o.subscriberId)),
            statuses: p(
              final.map((o) =>
                o.kind === 'delivered' ? 'sent' : o.kind === 'failed' ? 'failed' : 'skipped',
              ),
            ),
            reasons: p(final.map((o) => (o.kind === 'skipped' ? o.reason : null))),
            codes: p(final.map((o) => (o.kind === 'failed' ? (o.smtpCode ?? null) : null))),
            failures: p(final.map((o) => (o.kind === 'failed' ? (o.reason ?? null) : null))),
            hard: p(final.map((o) => o.kind === 'failed' && o.hardBounce)),
          };
    const deferrals =
      deferred.length === 0
        ? {}
        : {
            deferredIds: p(deferred.map((o) => o.subscriberId)),
            deferredCodes: p(
              deferred.map((o) => (o.kind === 'deferred' ? (o.smtpCode ?? null) : null)),
            ),
            first: p(policy.firstSeconds),
            max: p(policy.maxSeconds),
            horizon: p(policy.horizonSeconds),
          };
    statement.with(
      sql.outcomesPart({
        campaign: p(run.campaignId),
        account: p(run.accountId),
        run: p(run.id),
        batch: p(run.batch),
        ...finals,
        ...deferrals,
      }),
    );
    // Without deferrals every row written ended: `outcomes` is every row written.
    const logged: WrittenRows = deferred.length === 0 ? ENDED_ROWS : WRITTEN_ROWS;
    return { outcomes: ENDED_ROWS, sends: FINAL_SENDS, logged };
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

interface SnapshotRow extends sql.LedgerIntake {
  matched: number;
  last_id: string | null;
  batches: number[];
}
