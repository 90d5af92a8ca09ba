import { Injectable } from '@nestjs/common';
import { Campaign, Prisma, Subscriber } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';

type Db = Prisma.TransactionClient;

/** Subscriber statuses a campaign never mails: they are snapshotted as `skipped`. */
export const NOT_MAILABLE = ['unsubscribed', 'bounced'] as const;
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
  | { subscriberId: string; kind: 'skipped'; reason: 'erased' | 'unsubscribed' | 'bounced' };

/**
 * All SQL of the send pipeline: the ledger (campaign_recipients), the fan-out checkpoint and
 * the counters. Every method is scoped by account. Statements are written so that a retried
 * or duplicated job changes nothing twice: inserts skip existing rows, claims and outcomes are
 * conditional on the row's current status.
 */
@Injectable()
export class CampaignLedgerRepository {
  constructor(private readonly prisma: PrismaService) {}

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
          SELECT s.id, s.status, row_number() OVER (ORDER BY s.id) - 1 AS n
            FROM subscribers s
           WHERE s.account_id = ${accountId}::uuid AND s.id > ${after}::uuid AND ${audience}
           ORDER BY s.id
           LIMIT ${size}
        ), inserted AS (
          INSERT INTO campaign_recipients
                 (campaign_id, subscriber_id, account_id, batch, status, skip_reason)
          SELECT ${campaignId}::uuid, a.id, ${accountId}::uuid,
                 ${base}::int + (a.n / ${deliverySize}::int)::int,
                 CASE WHEN a.status = ANY(${NOT_MAILABLE}::text[]) THEN 'skipped' ELSE 'pending' END,
                 CASE WHEN a.status = ANY(${NOT_MAILABLE}::text[]) THEN a.status END
            FROM audience a
          ON CONFLICT DO NOTHING
          RETURNING status, skip_reason, batch
        )
        SELECT (SELECT count(*) FROM audience)::int AS matched,
               (SELECT a.id FROM audience a ORDER BY a.id DESC LIMIT 1)::text AS last_id,
               (SELECT count(*) FROM inserted WHERE status = 'pending')::int AS pending,
               (SELECT count(*) FROM inserted WHERE skip_reason = 'unsubscribed')::int AS unsubscribed,
               (SELECT count(*) FROM inserted WHERE skip_reason = 'bounced')::int AS bounced,
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
    // Shaped so the plan is the right one even on a ledger that grew faster than its
    // statistics: the picked rows (index on campaign, batch, status) drive primary-key
    // lookups. The subquery locked exactly the pending rows it returns, so they still are.
    const rows = await this.prisma.$queryRaw<{ subscriber_id: string }[]>`
      UPDATE campaign_recipients r
         SET status = 'sending', claimed_at = now(), attempts = r.attempts + 1
        FROM (SELECT subscriber_id FROM campaign_recipients
               WHERE campaign_id = ${campaignId}::uuid AND batch = ${batch} AND status = 'pending'
                 AND account_id = ${accountId}::uuid
               ORDER BY subscriber_id
               LIMIT ${limit}
                 FOR UPDATE SKIP LOCKED) picked
       WHERE r.campaign_id = ${campaignId}::uuid AND r.subscriber_id = picked.subscriber_id
      RETURNING r.subscriber_id::text`;
    return rows.map((row) => row.subscriber_id);
  }

  /**
   * The claimed recipients' rows. Raw SQL on this hot path (one query per chunk): Prisma's
   * model query costs about twice the CPU for the same rows. Column names map to the model's
   * field names by the schema's own convention (snake_case ↔ camelCase).
   */
  async subscribers(accountId: string, ids: string[]): Promise<Subscriber[]> {
    const rows = await this.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT * FROM subscribers WHERE account_id = ${accountId}::uuid AND id = ANY(${ids}::uuid[])`;
    return rows.map(toModelFields) as unknown as Subscriber[];
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

    await this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM campaigns WHERE id = ${campaignId}::uuid FOR UPDATE`;
      // Only rows still claimed are written, and the counters follow what was written, so
      // an outcome reported twice (a duplicated job, a retried transaction) counts once.
      const written = new Set(
        final.length === 0
          ? []
          : (
              await tx.$queryRaw<{ id: string }[]>`
                UPDATE campaign_recipients r
                   SET status = v.status, skip_reason = v.reason, smtp_code = v.code,
                       sent_at = CASE WHEN v.status IN ('sent', 'failed') THEN now() END
                  FROM unnest(${ids}::uuid[], ${statuses}::text[], ${reasons}::text[],
                              ${smtpCodes}::int[]) AS v(id, status, reason, code)
                 WHERE r.campaign_id = ${campaignId}::uuid AND r.subscriber_id = ANY(${ids}::uuid[])
                   AND r.subscriber_id = v.id
                   AND r.account_id = ${accountId}::uuid AND r.status = 'sending'
                RETURNING r.subscriber_id::text AS id`
            ).map((row) => row.id),
      );
      for (const outcome of deferred) {
        if (outcome.kind !== 'deferred') continue;
        await tx.$executeRaw`
          UPDATE campaign_recipients SET smtp_code = ${outcome.smtpCode ?? null}
           WHERE campaign_id = ${campaignId}::uuid AND subscriber_id = ${outcome.subscriberId}::uuid
             AND status = 'sending'`;
      }
      const applied = final.filter((o) => written.has(o.subscriberId));
      const count = (predicate: (o: Outcome) => boolean) => applied.filter(predicate).length;
      const skipped = (reason: string) => count((o) => o.kind === 'skipped' && o.reason === reason);
      const attempted = applied.filter((o) => o.kind === 'delivered' || o.kind === 'failed');
      if (attempted.length > 0) await this.recordSubscriberStats(tx, accountId, attempted);
      await tx.$executeRaw`
        UPDATE campaigns
           SET delivered_count = delivered_count + ${count((o) => o.kind === 'delivered')},
               failed_count = failed_count + ${count((o) => o.kind === 'failed')},
               bounce_count = bounce_count + ${count((o) => o.kind === 'failed' && o.hardBounce)},
               recipient_count = recipient_count - ${count((o) => o.kind === 'skipped')},
               skipped_erased_count = skipped_erased_count + ${skipped('erased')},
               skipped_unsubscribed_count = skipped_unsubscribed_count + ${skipped('unsubscribed')},
               skipped_bounced_count = skipped_bounced_count + ${skipped('bounced')},
               progress_at = now()
         WHERE id = ${campaignId}::uuid`;
    });
  }

  /** One UPDATE for the whole chunk: sent, delivered, bounces, last_sent_at; hard bounce → bounced. */
  private async recordSubscriberStats(tx: Db, accountId: string, attempted: Outcome[]) {
    const sorted = [...attempted].sort((a, b) => (a.subscriberId < b.subscriberId ? -1 : 1));
    const ids = sorted.map((o) => o.subscriberId);
    const delivered = sorted.map((o) => (o.kind === 'delivered' ? 1 : 0));
    const hard = sorted.map((o) => (o.kind === 'failed' && o.hardBounce ? 1 : 0));
    const soft = sorted.map((o) => (o.kind === 'failed' && !o.hardBounce ? 1 : 0));
    // The locking subquery takes the row locks in id order before anything is changed.
    await tx.$executeRaw`
      UPDATE subscribers s
         SET stat_sent = s.stat_sent + 1,
             stat_delivered = s.stat_delivered + v.delivered,
             stat_hard_bounces = s.stat_hard_bounces + v.hard,
             stat_soft_bounces = s.stat_soft_bounces + v.soft,
             status = CASE WHEN v.hard = 1 THEN 'bounced' ELSE s.status END,
             last_sent_at = now()
        FROM (SELECT id FROM subscribers
               WHERE account_id = ${accountId}::uuid AND id = ANY(${ids}::uuid[])
               ORDER BY id FOR UPDATE) locked,
             unnest(${ids}::uuid[], ${delivered}::int[], ${hard}::int[], ${soft}::int[])
             AS v(id, delivered, hard, soft)
       WHERE s.id = locked.id AND s.id = v.id`;
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

  /** Sending campaigns that have not advanced for `idleSeconds`: the watchdog revives them. */
  stalledCampaigns(idleSeconds: number): Promise<{ account_id: string; id: string }[]> {
    return this.prisma.$queryRaw`
      SELECT account_id::text, id::text FROM campaigns
       WHERE status = 'sending'
         AND (progress_at IS NULL OR progress_at < now() - make_interval(secs => ${idleSeconds}))
       LIMIT 100`;
  }
}

/** `stat_hard_bounces` → `statHardBounces`: the schema maps every column this way. */
function toModelFields(row: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    fields[column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())] = value;
  }
  return fields;
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
  batches: number[];
}
