import { Injectable } from '@nestjs/common';
import { Campaign, Prisma, Subscriber } from '../generated/prisma/client';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { SuppressionList } from '../suppression/suppression-list';
import { SOFT_BOUNCE_LIMIT } from '../suppression/suppression-reason';
import { SkipReason, SKIP_REASON_SQL } from './mailability';

type Db = Prisma.TransactionClient;

// The per-chunk statements run on PgPool, not Prisma: Prisma's runtime cost several times
// the SQL on this path (docs/decisions.md). Each is shaped so that its plan stays an index
// lookup even while the ledger has no statistics yet (a campaign's first minute).

/**
 * Claims up to $4 pending rows of a batch. The picked rows (index on campaign, batch,
 * status) drive primary-key lookups; the subquery locked exactly the pending rows it
 * returns, so they still are pending when updated.
 */
const CLAIM = `
  UPDATE campaign_recipients r
     SET status = 'sending', claimed_at = now(), attempts = r.attempts + 1
    FROM (SELECT subscriber_id FROM campaign_recipients
           WHERE campaign_id = $1 AND batch = $2 AND status = 'pending' AND account_id = $3
           ORDER BY subscriber_id
           LIMIT $4
             FOR UPDATE SKIP LOCKED) picked
   WHERE r.campaign_id = $1 AND r.subscriber_id = picked.subscriber_id
  RETURNING r.subscriber_id::text`;

/** Campaign row first: the lock order every writer of counters and subscribers keeps. */
const LOCK_CAMPAIGN = `SELECT 1 FROM campaigns WHERE id = $1 FOR UPDATE`;

const WRITE_OUTCOMES = `
  UPDATE campaign_recipients r
     SET status = v.status, skip_reason = v.reason, smtp_code = v.code,
         sent_at = CASE WHEN v.status IN ('sent', 'failed') THEN now() END
    FROM unnest($3::uuid[], $4::text[], $5::text[], $6::int[]) AS v(id, status, reason, code)
   WHERE r.campaign_id = $1 AND r.subscriber_id = ANY($3::uuid[]) AND r.subscriber_id = v.id
     AND r.account_id = $2 AND r.status = 'sending'
  RETURNING r.subscriber_id::text AS id`;

const NOTE_DEFERRAL = `
  UPDATE campaign_recipients SET smtp_code = $3
   WHERE campaign_id = $1 AND subscriber_id = $2 AND status = 'sending'`;

/**
 * One UPDATE for a whole chunk of recipients: sent, delivered, bounces, last_sent_at. A hard
 * bounce, or the SOFT_BOUNCE_LIMIT-th soft bounce in a row, marks a subscribed person bounced
 * and returns their address for the suppression list. The locking subquery takes the row
 * locks in id order before anything changes, so concurrent campaigns cannot deadlock on them.
 */
const SUBSCRIBER_STATS = `
  UPDATE subscribers s
     SET stat_sent = s.stat_sent + 1,
         stat_delivered = s.stat_delivered + v.delivered,
         stat_hard_bounces = s.stat_hard_bounces + v.hard,
         stat_soft_bounces = s.stat_soft_bounces + v.soft,
         soft_bounce_streak = s.soft_bounce_streak + v.soft,
         status = CASE WHEN s.status = 'subscribed'
                        AND (v.hard = 1 OR (v.soft = 1 AND s.soft_bounce_streak + 1 >= ${SOFT_BOUNCE_LIMIT}))
                       THEN 'bounced' ELSE s.status END,
         last_sent_at = now()
    FROM (SELECT id FROM subscribers WHERE account_id = $1 AND id = ANY($2::uuid[])
           ORDER BY id FOR UPDATE) locked,
         unnest($2::uuid[], $3::int[], $4::int[], $5::int[]) AS v(id, delivered, hard, soft)
   WHERE s.id = locked.id AND s.id = v.id
  RETURNING s.email_normalized,
            (v.hard = 1 OR (v.soft = 1 AND s.soft_bounce_streak >= ${SOFT_BOUNCE_LIMIT})) AS suppress`;

const CAMPAIGN_COUNTERS = `
  UPDATE campaigns
     SET delivered_count = delivered_count + $2,
         failed_count = failed_count + $3,
         bounce_count = bounce_count + $4,
         recipient_count = recipient_count - $5,
         skipped_erased_count = skipped_erased_count + $6,
         skipped_unsubscribed_count = skipped_unsubscribed_count + $7,
         skipped_bounced_count = skipped_bounced_count + $8,
         skipped_complained_count = skipped_complained_count + $9,
         skipped_suppressed_count = skipped_suppressed_count + $10,
         soft_bounce_count = soft_bounce_count + $11,
         progress_at = now()
   WHERE id = $1`;

/** Whether a subscriber's address is on the suppression list, as a column of the read. */
const SUPPRESSED = `EXISTS (SELECT 1 FROM suppressions x
                             WHERE x.account_id = s.account_id
                               AND x.email_normalized = s.email_normalized)`;

/** A claimed recipient's row, and whether the address is suppressed right now. */
export type RecipientRow = Subscriber & { suppressed: boolean };
const NO_ID = '00000000-0000-0000-0000-000000000000';

export interface SnapshotResult {
  /** Delivery batches that received at least one pending recipient. */
  batches: number[];
  done: boolean;
}

/** What became of one claimed recipient. */
export type Outcome =
  | { subscriberId: string; kind: 'delivered' }
  | { subscriberId: string; kind: 'failed'; smtpCode?: number; hardBounce: boolean }
  /** A 4xx or connection failure: stays claimed until the attempt ends, then pending again. */
  | { subscriberId: string; kind: 'deferred'; smtpCode?: number }
  /** Gone or no longer mailable since the snapshot: never sent. */
  | { subscriberId: string; kind: 'skipped'; reason: SkipReason };

/**
 * All SQL of the send pipeline: the ledger (campaign_recipients), the fan-out checkpoint and
 * the counters. Every method is scoped by account. Statements are written so that a retried
 * or duplicated job changes nothing twice: inserts skip existing rows, claims and outcomes are
 * conditional on the row's current status.
 */
@Injectable()
export class CampaignLedgerRepository {
  constructor(
    private readonly prisma: PrismaService,
    /** For the per-chunk statements (claim, read, record): see docs/decisions.md. */
    private readonly pool: PgPool,
    private readonly suppressions: SuppressionList,
  ) {}

  findCampaign(accountId: string, campaignId: string): Promise<Campaign | null> {
    return this.prisma.campaign.findFirst({ where: { accountId, id: campaignId } });
  }

  /** The filter of the campaign's segment; undefined if there is no such segment. */
  async segmentFilter(accountId: string, segmentId: string): Promise<unknown> {
    const segment = await this.prisma.segment.findFirst({
      where: { accountId, id: segmentId },
      select: { filter: true },
    });
    return segment === null ? undefined : segment.filter;
  }

  /**
   * Snapshots the next keyset batch of the audience into the ledger and advances the
   * checkpoint, in one transaction (listmonk-style): a fan-out that dies anywhere resumes
   * after the last committed batch and never inserts anyone twice. Recipients are numbered
   * into delivery batches of `deliverySize`.
   */
  async snapshotBatch(
    accountId: string,
    campaignId: string,
    audience: Prisma.Sql,
    size: number,
    deliverySize: number,
  ): Promise<SnapshotResult> {
    return this.prisma.$transaction(async (tx) => {
      const [campaign] = await tx.$queryRaw<CheckpointRow[]>`
        SELECT fanout_after_id, fanout_batches, fanout_done_at, segment_id, created_at
          FROM campaigns
         WHERE account_id = ${accountId}::uuid AND id = ${campaignId}::uuid AND status = 'sending'
           FOR UPDATE`;
      if (!campaign || campaign.fanout_done_at) return { batches: [], done: true };
      const after = campaign.fanout_after_id ?? NO_ID;
      const base = campaign.fanout_batches;

      const [batch] = await tx.$queryRaw<BatchRow[]>`
        WITH audience AS (
          SELECT s.id, s.status, ${Prisma.raw(SUPPRESSED)} AS suppressed,
                 row_number() OVER (ORDER BY s.id) - 1 AS n
            FROM subscribers s
           WHERE s.account_id = ${accountId}::uuid AND s.id > ${after}::uuid AND ${audience}
           ORDER BY s.id
           LIMIT ${size}
        ), decided AS (
          SELECT a.id, a.n, ${Prisma.raw(SKIP_REASON_SQL)} AS reason FROM audience a
        ), inserted AS (
          INSERT INTO campaign_recipients
                 (campaign_id, subscriber_id, account_id, batch, status, skip_reason)
          SELECT ${campaignId}::uuid, d.id, ${accountId}::uuid,
                 ${base}::int + (d.n / ${deliverySize}::int)::int,
                 CASE WHEN d.reason IS NULL THEN 'pending' ELSE 'skipped' END,
                 d.reason
            FROM decided d
          ON CONFLICT DO NOTHING
          RETURNING status, skip_reason, batch
        )
        SELECT (SELECT count(*) FROM audience)::int AS matched,
               (SELECT a.id FROM audience a ORDER BY a.id DESC LIMIT 1)::text AS last_id,
               (SELECT count(*) FROM inserted WHERE status = 'pending')::int AS pending,
               (SELECT count(*) FROM inserted WHERE skip_reason = 'unsubscribed')::int AS unsubscribed,
               (SELECT count(*) FROM inserted WHERE skip_reason = 'bounced')::int AS bounced,
               (SELECT count(*) FROM inserted WHERE skip_reason = 'complained')::int AS complained,
               (SELECT count(*) FROM inserted WHERE skip_reason = 'suppressed')::int AS suppressed,
               coalesce((SELECT array_agg(DISTINCT batch ORDER BY batch) FROM inserted
                          WHERE status = 'pending'), '{}') AS batches`;
      const done = batch.matched < size;
      const lastId = batch.last_id ?? after;
      const erased = campaign.segment_id
        ? 0
        : await this.erasedInRange(
            tx,
            accountId,
            campaignId,
            campaign.created_at,
            after,
            done ? null : lastId,
          );

      await tx.$executeRaw`
        UPDATE campaigns
           SET fanout_after_id = ${lastId}::uuid,
               fanout_batches = ${base + Math.ceil(batch.matched / deliverySize)},
               fanout_done_at = CASE WHEN ${done}::boolean THEN now() END,
               recipient_count = recipient_count + ${batch.pending},
               skipped_unsubscribed_count = skipped_unsubscribed_count + ${batch.unsubscribed},
               skipped_bounced_count = skipped_bounced_count + ${batch.bounced},
               skipped_complained_count = skipped_complained_count + ${batch.complained},
               skipped_suppressed_count = skipped_suppressed_count + ${batch.suppressed},
               skipped_erased_count = skipped_erased_count + ${erased},
               progress_at = now()
         WHERE id = ${campaignId}::uuid`;
      return { batches: batch.batches, done };
    });
  }

  /**
   * Erased identities cannot be matched against a segment any more (their data is gone), so
   * only an unsegmented campaign, whose audience is everyone, can count them honestly: the
   * tombstones of subscribers erased since the campaign was created whose ids fall in this
   * keyset range. Ones already in the ledger were counted when their row was skipped.
   */
  private async erasedInRange(
    tx: Db,
    accountId: string,
    campaignId: string,
    since: Date,
    after: string,
    through: string | null,
  ): Promise<number> {
    const [row] = await tx.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM erased_identities e
       WHERE e.account_id = ${accountId}::uuid
         AND e.subscriber_id > ${after}::uuid
         AND (${through}::uuid IS NULL OR e.subscriber_id <= ${through}::uuid)
         AND e.erased_at >= ${since}
         AND NOT EXISTS (SELECT 1 FROM campaign_recipients r
                          WHERE r.campaign_id = ${campaignId}::uuid
                            AND r.subscriber_id = e.subscriber_id)`;
    return row?.count ?? 0;
  }

  /** Batches with recipients still to send: their delivery jobs may need enqueuing again. */
  async unfinishedBatches(accountId: string, campaignId: string): Promise<number[]> {
    const rows = await this.prisma.$queryRaw<{ batch: number }[]>`
      SELECT DISTINCT batch FROM campaign_recipients
       WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
         AND status IN ('pending', 'sending')
       ORDER BY batch`;
    return rows.map((row) => row.batch);
  }

  /**
   * Claims left by an earlier attempt of this batch's job go back to pending. Only one attempt
   * of a job runs at a time (BullMQ's job lock), so a claim found when the job starts belongs
   * to an attempt that died: its outcome is unknown and the recipient is sent again (see
   * docs/decisions.md, "A crash mid-send").
   */
  async releaseClaims(accountId: string, campaignId: string, batch: number): Promise<number> {
    return this.prisma.$executeRaw`
      UPDATE campaign_recipients SET status = 'pending'
       WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
         AND batch = ${batch} AND status = 'sending'`;
  }

  /**
   * Moves up to `limit` pending recipients of the batch to `sending` and returns them: the
   * conditional UPDATE is what guarantees that no two workers ever send to the same row.
   */
  async claim(
    accountId: string,
    campaignId: string,
    batch: number,
    limit: number,
  ): Promise<string[]> {
    const { rows } = await this.pool.query<{ subscriber_id: string }>(CLAIM, [
      campaignId,
      batch,
      accountId,
      limit,
    ]);
    return rows.map((row) => row.subscriber_id);
  }

  /** The claimed recipients' rows, as Prisma's Subscriber type, with their suppression. */
  async subscribers(accountId: string, ids: string[]): Promise<RecipientRow[]> {
    const { rows } = await this.pool.query<Record<string, unknown>>(
      `SELECT s.*, ${SUPPRESSED} AS suppressed
         FROM subscribers s WHERE s.account_id = $1 AND s.id = ANY($2::uuid[])`,
      [accountId, ids],
    );
    return rows.map((row) => toSubscriber(row) as RecipientRow);
  }

  /**
   * Writes the outcomes of one chunk: ledger rows, the recipients' statistics and the
   * campaign counters, in bulk, in one transaction. Deferred recipients stay claimed. Locks
   * go campaign row first, then subscribers in id order, so concurrent chunks and erasures
   * cannot deadlock.
   */
  async record(accountId: string, campaignId: string, outcomes: Outcome[]): Promise<void> {
    const final = outcomes.filter((outcome) => outcome.kind !== 'deferred');
    const deferred = outcomes.filter((o) => o.kind === 'deferred' && o.smtpCode !== undefined);
    if (final.length === 0 && deferred.length === 0) return;
    const ids = final.map((o) => o.subscriberId);
    const statuses = final.map((o) =>
      o.kind === 'delivered' ? 'sent' : o.kind === 'failed' ? 'failed' : 'skipped',
    );
    const reasons = final.map((o) => (o.kind === 'skipped' ? o.reason : null));
    const smtpCodes = final.map((o) => (o.kind === 'failed' ? (o.smtpCode ?? null) : null));

    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(LOCK_CAMPAIGN, [campaignId]);
      // Only rows still claimed are written, and the counters follow what was written, so
      // an outcome reported twice (a duplicated job, a retried transaction) counts once.
      const written = new Set(
        final.length === 0
          ? []
          : (
              await client.query<{ id: string }>(WRITE_OUTCOMES, [
                campaignId,
                accountId,
                ids,
                statuses,
                reasons,
                smtpCodes,
              ])
            ).rows.map((row) => row.id),
      );
      for (const outcome of deferred) {
        if (outcome.kind !== 'deferred') continue;
        await client.query(NOTE_DEFERRAL, [campaignId, outcome.subscriberId, outcome.smtpCode]);
      }
      const applied = final.filter((o) => written.has(o.subscriberId));
      const count = (predicate: (o: Outcome) => boolean) => applied.filter(predicate).length;
      const skipped = (reason: string) => count((o) => o.kind === 'skipped' && o.reason === reason);
      const attempted = applied
        .filter((o) => o.kind === 'delivered' || o.kind === 'failed')
        .sort((x, y) => (x.subscriberId < y.subscriberId ? -1 : 1));
      if (attempted.length > 0) {
        const { rows } = await client.query<{ email_normalized: string; suppress: boolean }>(
          SUBSCRIBER_STATS,
          [
            accountId,
            attempted.map((o) => o.subscriberId),
            attempted.map((o) => (o.kind === 'delivered' ? 1 : 0)),
            attempted.map((o) => (o.kind === 'failed' && o.hardBounce ? 1 : 0)),
            attempted.map((o) => (o.kind === 'failed' && !o.hardBounce ? 1 : 0)),
          ],
        );
        // A refusal at SMTP time suppresses the address like a bounce report would.
        const bounced = rows.filter((row) => row.suppress).map((row) => row.email_normalized);
        await this.suppressions.suppressMany(client, accountId, bounced, 'hard_bounce');
      }
      await client.query(CAMPAIGN_COUNTERS, [
        campaignId,
        count((o) => o.kind === 'delivered'),
        count((o) => o.kind === 'failed'),
        count((o) => o.kind === 'failed' && o.hardBounce),
        count((o) => o.kind === 'skipped'),
        skipped('erased'),
        skipped('unsubscribed'),
        skipped('bounced'),
        skipped('complained'),
        skipped('suppressed'),
        // A relay's temporary refusal that outlasted every retry: a soft bounce.
        count((o) => o.kind === 'failed' && !o.hardBounce && o.smtpCode !== undefined),
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Deferred recipients of a finished attempt become pending again, for the retry. */
  async releaseDeferred(
    accountId: string,
    campaignId: string,
    subscriberIds: string[],
  ): Promise<void> {
    if (subscriberIds.length === 0) return;
    await this.prisma.$executeRaw`
      UPDATE campaign_recipients SET status = 'pending'
       WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
         AND subscriber_id = ANY(${subscriberIds}::uuid[]) AND status = 'sending'`;
  }

  /**
   * `sending` → `sent` once the audience is fully snapshotted and no recipient is pending or in
   * flight. Conditional on `status = 'sending'`, so of all the jobs that notice, one flips it.
   */
  async completeIfFinished(accountId: string, campaignId: string): Promise<boolean> {
    const updated = await this.prisma.$executeRaw`
      UPDATE campaigns c
         SET status = 'sent', finished_at = now(), updated_at = now(), progress_at = now()
       WHERE c.account_id = ${accountId}::uuid AND c.id = ${campaignId}::uuid
         AND c.status = 'sending' AND c.fanout_done_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM campaign_recipients r
                          WHERE r.campaign_id = c.id AND r.status IN ('pending', 'sending'))`;
    return updated === 1;
  }

  /**
   * Sending campaigns that have not advanced for `idleSeconds`: the watchdog revives them.
   * The one query across accounts: the watchdog looks after every account's sends.
   */
  stalledCampaigns(idleSeconds: number): Promise<{ account_id: string; id: string }[]> {
    return this.prisma.$queryRaw`
      SELECT account_id::text, id::text FROM campaigns
       WHERE status = 'sending'
         AND (progress_at IS NULL OR progress_at < now() - make_interval(secs => ${idleSeconds}))
       LIMIT 100`;
  }
}

const FIELD_NAMES = new Map<string, string>();
function fieldName(column: string): string {
  let name = FIELD_NAMES.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    FIELD_NAMES.set(column, name);
  }
  return name;
}

/**
 * A `subscribers` row as Prisma's Subscriber: `stat_hard_bounces` → `statHardBounces` (the
 * schema maps every column this way), and int8 from pg's string to the bigint Prisma gives.
 */
function toSubscriber(row: Record<string, unknown>): Subscriber {
  const fields: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) fields[fieldName(column)] = value;
  fields.statRevenueCents = BigInt(fields.statRevenueCents as string);
  return fields as unknown as Subscriber;
}

interface CheckpointRow {
  fanout_after_id: string | null;
  fanout_batches: number;
  fanout_done_at: Date | null;
  segment_id: string | null;
  created_at: Date;
}

interface BatchRow {
  matched: number;
  last_id: string | null;
  pending: number;
  unsubscribed: number;
  bounced: number;
  complained: number;
  suppressed: number;
  batches: number[];
}
