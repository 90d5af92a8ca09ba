import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';
import { SKIP_REASON_SQL, SUPPRESSED_SQL } from './mailability';

// Every statement over campaign_recipients, the send ledger. CampaignLedgerRepository runs
// them all but the timeline's two reads (CampaignTimelineRepository). The per-chunk ones (claim, outcomes) are pg text for PgPool: Prisma's runtime
// cost several times the SQL on that path (docs/decisions.md). Each is shaped so that its
// plan stays a lookup bounded by its batch whatever the ledger's statistics say: they are
// often older than the campaign, or describe other campaigns only.

/**
 * Claims up to $4 rows of a batch for delivery run $5, and only while that run's lease holds:
 * rows pending, deferred rows whose next try is due, and rows still `sending` under a run
 * whose lease has expired (a dead or frozen worker's claims). Returns each row with whether it
 * was taken over from an expired run. $1 campaign, $2 batch, $3 account, $4 limit, $5 run.
 *
 * The plan must not depend on the ledger's statistics, which usually describe other campaigns
 * (or none): planned from them, a campaign's rows look like one row, and PostgreSQL once chose
 * to scan the whole campaign and re-run the locking subquery for each of its rows (minutes a
 * claim at 20,000 recipients). So:
 * - the rows are picked once, in a MATERIALIZED CTE that no join can re-run;
 * - they are found through the partial index of unfinished rows, (campaign, batch) where the
 *   status is pending, sending or deferred, whose size is the batch's unfinished rows whatever
 *   the ledger holds (no ORDER BY, which would invite the primary key's campaign-wide walk);
 * - each picked row is updated by its physical address (ctid): a row locked by FOR UPDATE
 *   keeps it until this statement ends, and a TID scan has no cheaper rival to be mistaken for.
 */
export const CLAIM = `
  WITH picked AS MATERIALIZED (
    SELECT c.ctid AS row_address, c.subscriber_id, c.status = 'sending' AS taken_over
      FROM campaign_recipients c
     WHERE c.campaign_id = $1 AND c.batch = $2 AND c.account_id = $3
       AND c.status IN ('pending', 'sending', 'deferred')
       AND (c.status = 'pending'
            OR (c.status = 'deferred' AND c.next_attempt_at <= now())
            OR (c.status = 'sending' AND NOT EXISTS (
                  SELECT 1 FROM campaign_delivery_runs d
                   WHERE d.id = c.claim_run AND d.lease_until > now())))
       AND EXISTS (SELECT 1 FROM campaign_delivery_runs d
                    WHERE d.id = $5 AND d.lease_until > now())
     LIMIT $4
       FOR UPDATE OF c SKIP LOCKED)
  UPDATE campaign_recipients r
     SET status = 'sending', claimed_at = now(), claim_run = $5, attempts = r.attempts + 1
    FROM picked
   WHERE r.ctid = picked.row_address
     AND r.campaign_id = $1 AND r.subscriber_id = picked.subscriber_id
  RETURNING r.subscriber_id::text, picked.taken_over`;

/**
 * A halted run's claims that never went out (a pause stopped them before the relay took
 * them) go back to pending, for the run after a resume; the claim's attempt is given back.
 * Only rows this run still holds. $1 campaign, $2 batch, $3 account, $4 run.
 */
export const RELEASE_UNSENT = `
  UPDATE campaign_recipients r
     SET status = 'pending', claim_run = NULL, claimed_at = NULL,
         attempts = greatest(r.attempts - 1, 0)
   WHERE r.campaign_id = $1 AND r.batch = $2 AND r.account_id = $3
     AND r.status = 'sending' AND r.claim_run = $4`;

/** `written` when there is no final outcome to write (only deferrals). */
const NOTHING_WRITTEN = `
    SELECT NULL::uuid AS subscriber_id, NULL::text AS status, NULL::text AS skip_reason,
           NULL::int AS smtp_code, NULL::bool AS hard_bounce
     WHERE false`;

/** Placeholders of the outcome write's ledger part (see outcomesPart). */
export interface OutcomeParams {
  campaign: string;
  account: string;
  run: string;
  batch: string;
  /**
   * Parallel arrays of the final outcomes (subscriber ids, statuses, skip reasons, SMTP codes,
   * failure reasons, hard bounces); absent when there are none.
   */
  ids?: string;
  statuses?: string;
  reasons?: string;
  codes?: string;
  failures?: string;
  hard?: string;
  /**
   * Parallel arrays of the temporary refusals (subscriber ids, SMTP codes); absent when there
   * are none.
   */
  deferredIds?: string;
  deferredCodes?: string;
  /** The retry policy, in seconds: first wait, longest wait, horizon (with deferrals). */
  first?: string;
  max?: string;
  horizon?: string;
}

/**
 * The fence of an outcome write over `campaign_recipients r` joined to the list `v`: rows of
 * the list (`ids`) still `sending` under this run. Every index the rows can be found through
 * bounds the walk to the run's batch (see outcomesPart).
 */
const heldByRun = (p: OutcomeParams, ids: string) => `
  r.campaign_id = ${p.campaign}::uuid AND r.subscriber_id = ANY(${ids}::uuid[])
       AND r.subscriber_id = v.id AND r.account_id = ${p.account}::uuid
       AND r.batch = ${p.batch}::int AND r.status = 'sending'
       AND r.claim_run = ${p.run}::uuid`;

/**
 * The ledger's part of an outcome write, as common table expressions. Only rows the run still
 * holds (`sending`, claimed by it) are written: an outcome reported twice writes once, and a
 * run whose claim was taken over writes nothing. Final outcomes end their rows; a temporary
 * refusal defers its row to the next try, the wait doubling per attempt from the first wait
 * up to the longest, or fails it once its first refusal is older than the horizon. Names
 * `outcomes`: every row that ended here (subscriber_id, status 'sent' | 'failed' | 'skipped',
 * skip_reason, smtp_code, hard_bounce), for the parts that count them.
 *
 * Every index the rows can be found through bounds the walk to the run's batch: the list
 * (primary key with the ids), or the batch (the partial index of unfinished rows, which holds
 * no finished row). The ledger keeps no index over the statuses of finished rows: planned
 * from statistics that describe other campaigns, a write once walked such an index over every
 * row the campaign had, each finished message leaving a dead entry to step over (2 ms to 4 ms
 * a write over 100,000 messages). For the same reason an UPDATE with no rows to write is left
 * out.
 */
export const outcomesPart = (p: OutcomeParams) => `
  written AS (${
    p.ids === undefined
      ? NOTHING_WRITTEN
      : `
    UPDATE campaign_recipients r
       SET status = v.status, skip_reason = v.reason, smtp_code = v.code, fail_reason = v.failure,
           sent_at = CASE WHEN v.status IN ('sent', 'failed') THEN now() END,
           claim_run = NULL, next_attempt_at = NULL
      FROM unnest(${p.ids}::uuid[], ${p.statuses}::recipient_status[], ${p.reasons}::skip_reason[],
                  ${p.codes}::int[], ${p.failures}::text[], ${p.hard}::bool[])
             AS v(id, status, reason, code, failure, hard)
     WHERE ${heldByRun(p, p.ids)}
    RETURNING r.subscriber_id, r.status::text AS status, r.skip_reason::text AS skip_reason,
              r.smtp_code, v.hard AS hard_bounce`
  }),
${
  p.deferredIds === undefined
    ? `
  outcomes AS (SELECT * FROM written),`
    : `
  deferred AS (
    UPDATE campaign_recipients r
       SET status = CASE WHEN r.deferred_since <= now() - make_interval(secs => ${p.horizon}::float8)
                         THEN 'failed' ELSE 'deferred' END::recipient_status,
           deferred_since = coalesce(r.deferred_since, now()),
           next_attempt_at = now() + make_interval(secs => least(${p.max}::float8,
             ${p.first}::float8 * power(2, least(greatest(r.attempts - 1, 0), 30)))),
           sent_at = CASE WHEN r.deferred_since <= now() - make_interval(secs => ${p.horizon}::float8)
                          THEN now() END,
           smtp_code = v.code, claim_run = NULL
      FROM unnest(${p.deferredIds}::uuid[], ${p.deferredCodes}::int[]) AS v(id, code)
     WHERE ${heldByRun(p, p.deferredIds)}
    RETURNING r.subscriber_id, r.status::text AS status, NULL::text AS skip_reason, r.smtp_code,
              false AS hard_bounce),
  outcomes AS (
    SELECT * FROM written
    UNION ALL
    -- A refusal past the retry horizon is final: a failure, counted as a soft bounce.
    SELECT * FROM deferred WHERE status = 'failed'),
  -- Every row written, deferrals too (the message log records each attempt's end).
  logged AS (SELECT * FROM written UNION ALL SELECT * FROM deferred),`
}
  -- The messages the relay answered for good: what the recipients' and the days' statistics
  -- count as sent (a message that could not even be built never left).
  sends AS (
    SELECT subscriber_id, status = 'sent' AS delivered,
           status = 'failed' AND hard_bounce AS hard_bounce,
           status = 'failed' AND NOT hard_bounce AS soft_bounce
      FROM outcomes
     WHERE status = 'sent' OR (status = 'failed' AND smtp_code IS NOT NULL))`;

/**
 * When the batch next needs a delivery run, or nothing when every row is final: now for rows
 * claimable at once (pending, orphaned claims), the earliest deferred try, or the lease end of
 * a run still holding claims. $1 campaign, $2 batch, $3 account.
 */
export const NEXT_WAKE = `
  SELECT min(t) AS wake FROM (
    SELECT CASE
             WHEN r.status = 'pending' THEN now()
             WHEN r.status = 'deferred' THEN r.next_attempt_at
             ELSE coalesce((SELECT d.lease_until FROM campaign_delivery_runs d
                             WHERE d.id = r.claim_run AND d.lease_until > now()), now())
           END AS t
      FROM campaign_recipients r
     WHERE r.campaign_id = $1 AND r.batch = $2 AND r.account_id = $3
       AND r.status IN ('pending', 'sending', 'deferred')
  ) w`;

/** The next keyset batch of a campaign's audience to put into its ledger. */
export interface AudienceSlice {
  accountId: AccountId;
  campaignId: string;
  /** The last subscriber id already in the ledger, and the next delivery batch's number. */
  checkpoint: { afterId: string; base: number };
  /** A condition over `subscribers s` (a segment's compiled filter, or TRUE). */
  audience: Prisma.Sql;
  /** Subscribers read at the most. */
  size: number;
  /** Recipients per delivery batch. */
  deliverySize: number;
}

/**
 * What a snapshot put into the ledger, by kind: the pending recipients and each reason to skip
 * (the campaign's counters add these up).
 */
export interface LedgerIntake {
  pending: number;
  unsubscribed: number;
  bounced: number;
  complained: number;
  suppressed: number;
  /** A status none of Herald's four (`pending`, say). */
  other: number;
}

/**
 * The next keyset batch of the audience into the ledger, numbered into delivery batches from
 * `base`. Returns how many subscribers matched, the last id read (the next checkpoint), what
 * was inserted by kind, and the delivery batches that got pending rows.
 */
export function snapshotAudience(slice: AudienceSlice): Prisma.Sql {
  const { accountId, campaignId, checkpoint, audience, size, deliverySize } = slice;
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
           (SELECT count(*) FROM inserted WHERE skip_reason = 'other')::int AS other,
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

/** Recipients not final yet: pending, claimed or deferred. */
export const UNFINISHED = `status IN ('pending', 'sending', 'deferred')`;

export const unfinishedBatches = (accountId: AccountId, campaignId: string) => Prisma.sql`
  SELECT DISTINCT batch FROM campaign_recipients
   WHERE account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid
     AND ${Prisma.raw(UNFINISHED)}
   ORDER BY batch`;

/** Erasure: the person's pending rows become skipped; returns the count per campaign, in id order. */
export const skipPendingOfErased = (accountId: AccountId, subscriberId: string) => Prisma.sql`
  WITH skipped AS (
    UPDATE campaign_recipients
       SET status = 'skipped', skip_reason = 'erased', next_attempt_at = NULL
     WHERE account_id = ${accountId}::uuid
       AND subscriber_id = ${subscriberId}::uuid AND status IN ('pending', 'deferred')
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

/**
 * A cancelled campaign's pending and deferred rows become skipped (cancelled), and so do
 * claims no live run holds (a run a pause halted left them for the run after a resume, which
 * will not come); returns how many.
 */
export const cancelPending = (accountId: AccountId, campaignId: string) => Prisma.sql`
  UPDATE campaign_recipients c
     SET status = 'skipped', skip_reason = 'cancelled', next_attempt_at = NULL
   WHERE c.account_id = ${accountId}::uuid AND c.campaign_id = ${campaignId}::uuid
     AND (c.status IN ('pending', 'deferred')
          OR (c.status = 'sending' AND NOT EXISTS (
                SELECT 1 FROM campaign_delivery_runs d
                 WHERE d.id = c.claim_run AND d.lease_until > now())))`;

/**
 * Recipients added to an automation step's campaign, one per run that reached the step:
 * pending in batch `batch`, delivered like any campaign's. The primary key keeps a run's
 * send to one row however often its pass is retried. Returns the rows inserted.
 */
export const addStepRecipients = (
  accountId: AccountId,
  campaignId: string,
  batch: number,
  subscriberIds: string[],
) => Prisma.sql`
  INSERT INTO campaign_recipients (campaign_id, subscriber_id, account_id, batch, status)
  SELECT ${campaignId}::uuid, id, ${accountId}::uuid, ${batch}::int, 'pending'
    FROM unnest(${subscriberIds}::uuid[]) AS id
  ON CONFLICT DO NOTHING
  RETURNING subscriber_id::text`;

/**
 * Whether each (campaign, subscriber) was opened or clicked by a person (machine activity
 * never stamps the ledger), for automation conditions. A person's click counts as an open too:
 * whoever followed a link in the message read it, even with its images (the pixel) blocked.
 */
export const activityOf = (accountId: AccountId, campaignIds: string[], subscriberIds: string[]) =>
  Prisma.sql`
  SELECT r.campaign_id::text, r.subscriber_id::text,
         (r.opened_at IS NOT NULL OR r.clicked_at IS NOT NULL) AS opened,
         r.clicked_at IS NOT NULL AS clicked
    FROM unnest(${campaignIds}::uuid[], ${subscriberIds}::uuid[]) AS p(campaign_id, subscriber_id)
    JOIN campaign_recipients r
      ON r.campaign_id = p.campaign_id AND r.subscriber_id = p.subscriber_id
   WHERE r.account_id = ${accountId}::uuid`;

/** Per campaign: messages the relay answered for good, delivered, and people who opened or clicked. */
export const deliveryCounts = (accountId: AccountId, campaignIds: string[]) => Prisma.sql`
  SELECT campaign_id::text,
         count(*) FILTER (WHERE status = 'sent' OR (status = 'failed' AND smtp_code IS NOT NULL))::int AS sent,
         count(*) FILTER (WHERE status = 'sent')::int AS delivered,
         count(opened_at)::int AS unique_opens,
         count(clicked_at)::int AS unique_clicks
    FROM campaign_recipients
   WHERE account_id = ${accountId}::uuid AND campaign_id = ANY(${campaignIds}::uuid[])
   GROUP BY campaign_id`;
