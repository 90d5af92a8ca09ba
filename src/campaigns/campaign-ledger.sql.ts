import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { SKIP_REASON_SQL, SUPPRESSED_SQL } from './mailability';

// Every statement over campaign_recipients, the send ledger. CampaignLedgerRepository runs
// them all but the timeline's two reads (CampaignTimelineRepository). The per-chunk ones (claim, outcomes) are pg text for PgPool: Prisma's runtime
// cost several times the SQL on that path (docs/decisions.md). Each is shaped so that its
// plan stays an index lookup even while the ledger has no statistics yet (a campaign's first
// minute).

/**
 * Claims up to $4 pending rows of a batch. The picked rows (index on campaign, batch,
 * status) drive primary-key lookups; the subquery locked exactly the pending rows it
 * returns, so they still are pending when updated.
 * $1 campaign, $2 batch, $3 account, $4 limit.
 */
export const CLAIM = `
  UPDATE campaign_recipients r
     SET status = 'sending', claimed_at = now(), attempts = r.attempts + 1
    FROM (SELECT subscriber_id FROM campaign_recipients
           WHERE campaign_id = $1 AND batch = $2 AND status = 'pending' AND account_id = $3
           ORDER BY subscriber_id
           LIMIT $4
             FOR UPDATE SKIP LOCKED) picked
   WHERE r.campaign_id = $1 AND r.subscriber_id = picked.subscriber_id
  RETURNING r.subscriber_id::text`;

/**
 * Final outcomes of claimed rows, only where the row is still `sending`: an outcome reported
 * twice writes (and counts) once. $1 campaign, $2 account, then parallel arrays: $3 subscriber
 * ids, $4 statuses, $5 skip reasons, $6 SMTP codes, $7 failure reasons.
 */
export const WRITE_OUTCOMES = `
  UPDATE campaign_recipients r
     SET status = v.status, skip_reason = v.reason, smtp_code = v.code, fail_reason = v.failure,
         sent_at = CASE WHEN v.status IN ('sent', 'failed') THEN now() END
    FROM unnest($3::uuid[], $4::recipient_status[], $5::skip_reason[], $6::int[], $7::text[])
           AS v(id, status, reason, code, failure)
   WHERE r.campaign_id = $1 AND r.subscriber_id = ANY($3::uuid[]) AND r.subscriber_id = v.id
     AND r.account_id = $2 AND r.status = 'sending'
  RETURNING r.subscriber_id::text AS id`;

/** The SMTP code of a deferral, kept on the still-claimed row. $1 campaign, $2 subscriber, $3 code, $4 account. */
export const NOTE_DEFERRAL = `
  UPDATE campaign_recipients SET smtp_code = $3
   WHERE campaign_id = $1 AND subscriber_id = $2 AND account_id = $4 AND status = 'sending'`;

/**
 * The next keyset batch of the audience into the ledger, numbered into delivery batches from
 * `base`. `audience` is a condition over `subscribers s` (a segment's compiled filter, or
 * TRUE). Returns how many subscribers matched, the last id read (the next checkpoint), what
 * was inserted by kind, and the delivery batches that got pending rows.
 */
export function snapshotAudience(
  accountId: AccountId,
  campaignId: string,
  checkpoint: { afterId: string; base: number },
  audience: Prisma.Sql,
  size: number,
  deliverySize: number,
): Prisma.Sql {
  return Prisma.sql`
    WITH audience AS (
      SELECT s.id, s.status, ${Prisma.raw(SUPPRESSED_SQL)} AS suppressed,
             row_number() OVER (ORDER BY s.id) - 1 AS n
        FROM subscribers s
       WHERE s.account_id = ${accountId}::uuid AND s.id > ${checkpoint.afterId}::uuid AND ${audience}
       ORDER BY s.id
       LIMIT ${size}
    ), decided AS (
      SELECT a.id, a.n, ${Prisma.raw(SKIP_REASON_SQL)} AS reason FROM audience a
    ), inserted AS (
      INSERT INTO campaign_recipients
             (campaign_id, subscriber_id, account_id, batch, status, skip_reason)
      SELECT ${campaignId}::uuid, d.id, ${accountId}::uuid,
             ${checkpoint.base}::int + (d.n / ${deliverySize}::int)::int,
             (CASE WHEN d.reason IS NULL THEN 'pending' ELSE 'skipped' END)::recipient_status,
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
}

/** How many of these subscribers have no row in the campaign's ledger. */
export const countNotInLedger = (accountId: AccountId, campaignId: string, ids: string[]) =>
  Prisma.sql`
    SELECT count(*)::int AS count FROM unnest(${ids}::uuid[]) AS e(id)
     WHERE NOT EXISTS (SELECT 1 FROM campaign_recipients r
                        WHERE r.campaign_id = ${campaignId}::uuid
                          AND r.account_id = ${accountId}::uuid
                          AND r.subscriber_id = e.id)`;

export const unfinishedBatches = (accountId: AccountId, campaignId: string) => Prisma.sql`
  SELECT DISTINCT batch FROM campaign_recipients
   WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
     AND status IN ('pending', 'sending')
   ORDER BY batch`;

export const releaseClaims = (accountId: AccountId, campaignId: string, batch: number) =>
  Prisma.sql`
    UPDATE campaign_recipients SET status = 'pending'
     WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
       AND batch = ${batch} AND status = 'sending'`;

export const releaseDeferred = (accountId: AccountId, campaignId: string, ids: string[]) =>
  Prisma.sql`
    UPDATE campaign_recipients SET status = 'pending'
     WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
       AND subscriber_id = ANY(${ids}::uuid[]) AND status = 'sending'`;

export const outstanding = (accountId: AccountId, campaignId: string) => Prisma.sql`
  SELECT count(*) AS count FROM campaign_recipients
   WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
     AND status IN ('pending', 'sending')`;

/** Erasure: the person's pending rows become skipped; returns the count per campaign, in id order. */
export const skipPendingOfErased = (accountId: AccountId, subscriberId: string) => Prisma.sql`
  WITH skipped AS (
    UPDATE campaign_recipients SET status = 'skipped', skip_reason = 'erased'
     WHERE account_id = ${accountId}::uuid
       AND subscriber_id = ${subscriberId}::uuid AND status = 'pending'
    RETURNING campaign_id
  )
  SELECT campaign_id::text, count(*)::int AS count FROM skipped
   GROUP BY campaign_id ORDER BY campaign_id`;

/** The ledger column that remembers a recipient's first open or click. */
export type ActivityKind = 'open' | 'click';
const FIRST_AT: Record<ActivityKind, Prisma.Sql> = {
  // Fixed identifiers, never input: safe to splice with Prisma.raw.
  open: Prisma.raw('opened_at'),
  click: Prisma.raw('clicked_at'),
};

/** Stamps the recipient's first open or click; matches nothing after the first. */
export const markFirstActivity = (
  kind: ActivityKind,
  accountId: AccountId,
  campaignId: string,
  subscriberId: string,
) => Prisma.sql`
  UPDATE campaign_recipients SET ${FIRST_AT[kind]} = now()
   WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
     AND subscriber_id = ${subscriberId}::uuid AND ${FIRST_AT[kind]} IS NULL`;

// Recipients a cancellation left unsent are not events of the send: the timeline leaves them out.
const timelineRows = (accountId: AccountId, campaignId: string) =>
  Prisma.sql`account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
             AND skip_reason IS DISTINCT FROM 'cancelled'`;

/** The first and the last moment anything happened to the campaign's recipients. */
export const timelineExtent = (accountId: AccountId, campaignId: string) => {
  const where = timelineRows(accountId, campaignId);
  return Prisma.sql`
    SELECT min(t) AS first, max(t) AS last FROM (
      SELECT min(coalesce(sent_at, created_at)) AS t FROM campaign_recipients
       WHERE ${where} AND status IN ('sent', 'failed', 'skipped')
      UNION ALL
      SELECT max(greatest(coalesce(sent_at, created_at), opened_at, clicked_at))
        FROM campaign_recipients WHERE ${where} AND status IN ('sent', 'failed', 'skipped')
    ) e`;
};

/** Events per bucket of `width` seconds from `start`, by kind. */
export const timelineBuckets = (
  accountId: AccountId,
  campaignId: string,
  start: Date,
  width: number,
) => {
  const where = timelineRows(accountId, campaignId);
  return Prisma.sql`
    SELECT floor(extract(epoch FROM t - ${start}::timestamptz) / ${width})::int AS bucket,
           kind, count(*)::int AS n
      FROM (
        SELECT sent_at AS t, CASE status WHEN 'sent' THEN 'delivered' ELSE 'failed' END AS kind
          FROM campaign_recipients WHERE ${where} AND status IN ('sent', 'failed')
        UNION ALL
        SELECT coalesce(sent_at, created_at), 'skipped'
          FROM campaign_recipients WHERE ${where} AND status = 'skipped'
        UNION ALL
        SELECT opened_at, 'opens' FROM campaign_recipients
         WHERE ${where} AND opened_at IS NOT NULL
        UNION ALL
        SELECT clicked_at, 'clicks' FROM campaign_recipients
         WHERE ${where} AND clicked_at IS NOT NULL
      ) events
     WHERE t IS NOT NULL
     GROUP BY 1, 2 ORDER BY 1`;
};

/** A cancelled campaign's pending rows become skipped (cancelled); returns how many. */
export const cancelPending = (accountId: AccountId, campaignId: string) => Prisma.sql`
  UPDATE campaign_recipients SET status = 'skipped', skip_reason = 'cancelled'
   WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
     AND status = 'pending'`;
