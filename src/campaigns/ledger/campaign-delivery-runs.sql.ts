// Statements over campaign_delivery_runs (CampaignDeliveryRunsRepository runs them all). They
// are pg text for PgPool: renewals and counter updates sit on the send hot path.

import { addingUp } from '../../platform/database/adding-up';

/** A new run of a batch, its lease starting now. $1 run, $2 campaign, $3 account, $4 batch, $5 lease seconds. */
export const START_RUN = `
  INSERT INTO campaign_delivery_runs (id, campaign_id, account_id, batch, lease_until)
  VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`;

/**
 * Extends a run's lease, only while it still holds: a run whose lease has lapsed may already
 * have lost its claims, so it must not carry on. $1 run, $2 lease seconds.
 */
export const RENEW_RUN = `
  UPDATE campaign_delivery_runs SET lease_until = now() + make_interval(secs => $2)
   WHERE id = $1 AND lease_until > now()`;

/** A run's counters, in the order countOutcomesPart fills them. */
const RUN_COUNTERS = [
  'delivered',
  'failed',
  'hard_bounces',
  'soft_bounces',
  'skipped_erased',
  'skipped_unsubscribed',
  'skipped_bounced',
  'skipped_complained',
  'skipped_suppressed',
  'skipped_other',
] as const;

/**
 * The run's part of an outcome write: adds what the ledger part's `outcomes` ended to the
 * run's counters. The row may be gone (an expired run folded while its worker was frozen): it
 * is then recreated, already expired, and folded by the next run of the batch or when the
 * campaign completes. Nothing is written when no row ended.
 */
export const countOutcomesPart = (p: {
  outcomes: string;
  run: string;
  campaign: string;
  account: string;
  batch: string;
}) => `
  run_counted AS (
    INSERT INTO campaign_delivery_runs
           (id, campaign_id, account_id, batch, lease_until, ${RUN_COUNTERS.join(', ')})
    SELECT ${p.run}::uuid, ${p.campaign}::uuid, ${p.account}::uuid, ${p.batch}::int, '-infinity',
           count(*) FILTER (WHERE status = 'sent'),
           count(*) FILTER (WHERE status = 'failed'),
           count(*) FILTER (WHERE status = 'failed' AND hard_bounce),
           count(*) FILTER (WHERE status = 'failed' AND NOT hard_bounce AND smtp_code IS NOT NULL),
           count(*) FILTER (WHERE skip_reason = 'erased'),
           count(*) FILTER (WHERE skip_reason = 'unsubscribed'),
           count(*) FILTER (WHERE skip_reason = 'bounced'),
           count(*) FILTER (WHERE skip_reason = 'complained'),
           count(*) FILTER (WHERE skip_reason = 'suppressed'),
           count(*) FILTER (WHERE skip_reason = 'other')
      FROM ${p.outcomes}
    HAVING count(*) > 0
    ON CONFLICT (id) DO UPDATE SET ${addingUp('campaign_delivery_runs', RUN_COUNTERS)})`;

/**
 * Deletes the chosen runs of a campaign and adds their counts to the campaign's counters, in
 * one statement (a skipped recipient leaves `recipients`). `which` is a condition over the
 * runs, with $3 and on free for it. $1 campaign, $2 account.
 */
export const foldRuns = (which: string) => `
  WITH folded AS (
    DELETE FROM campaign_delivery_runs
     WHERE campaign_id = $1 AND account_id = $2 AND (${which})
    RETURNING *
  ), sums AS (
    SELECT count(*) AS runs,
           coalesce(sum(delivered), 0) AS delivered, coalesce(sum(failed), 0) AS failed,
           coalesce(sum(hard_bounces), 0) AS hard_bounces,
           coalesce(sum(soft_bounces), 0) AS soft_bounces,
           coalesce(sum(skipped_erased), 0) AS erased,
           coalesce(sum(skipped_unsubscribed), 0) AS unsubscribed,
           coalesce(sum(skipped_bounced), 0) AS bounced,
           coalesce(sum(skipped_complained), 0) AS complained,
           coalesce(sum(skipped_suppressed), 0) AS suppressed,
           coalesce(sum(skipped_other), 0) AS other
      FROM folded
  )
  UPDATE campaigns c
     SET delivered_count = delivered_count + s.delivered,
         failed_count = failed_count + s.failed,
         bounce_count = bounce_count + s.hard_bounces,
         soft_bounce_count = soft_bounce_count + s.soft_bounces,
         recipient_count = recipient_count
           - (s.erased + s.unsubscribed + s.bounced + s.complained + s.suppressed + s.other),
         skipped_erased_count = skipped_erased_count + s.erased,
         skipped_unsubscribed_count = skipped_unsubscribed_count + s.unsubscribed,
         skipped_bounced_count = skipped_bounced_count + s.bounced,
         skipped_complained_count = skipped_complained_count + s.complained,
         skipped_suppressed_count = skipped_suppressed_count + s.suppressed,
         skipped_other_count = skipped_other_count + s.other,
         progress_at = now()
    FROM sums s
   WHERE c.id = $1 AND c.account_id = $2 AND s.runs > 0`;

/** One run, at its end. $3 run. */
export const FOLD_RUN = foldRuns('id = $3');
/** Runs of a batch whose lease has expired (their workers died or froze). $3 batch. */
export const FOLD_EXPIRED_OF_BATCH = foldRuns('batch = $3 AND lease_until <= now()');
/** Every run of the campaign: at completion, when no recipient is claimed any more. */
export const FOLD_ALL = foldRuns('true');

/**
 * Campaigns' counters as they stand, runs not folded yet included, in one statement (one
 * snapshot: a run folded meanwhile is counted once, never twice or not at all). With $3, also
 * the recipients not final yet and those of them deferred, from the ledger in the same
 * snapshot, so that delivered + failed + outstanding always equals recipients.
 * $1 account, $2 campaign ids, $3 whether to count the unfinished.
 */
export const CURRENT_COUNTERS = `
  SELECT c.id::text,
         c.recipient_count - coalesce(u.skipped_erased + u.skipped_unsubscribed
           + u.skipped_bounced + u.skipped_complained + u.skipped_suppressed
           + u.skipped_other, 0)
           AS recipient_count,
         c.delivered_count + coalesce(u.delivered, 0) AS delivered_count,
         c.failed_count + coalesce(u.failed, 0) AS failed_count,
         c.bounce_count + coalesce(u.hard_bounces, 0) AS bounce_count,
         c.soft_bounce_count + coalesce(u.soft_bounces, 0) AS soft_bounce_count,
         c.skipped_erased_count + coalesce(u.skipped_erased, 0) AS skipped_erased_count,
         c.skipped_unsubscribed_count + coalesce(u.skipped_unsubscribed, 0)
           AS skipped_unsubscribed_count,
         c.skipped_bounced_count + coalesce(u.skipped_bounced, 0) AS skipped_bounced_count,
         c.skipped_complained_count + coalesce(u.skipped_complained, 0)
           AS skipped_complained_count,
         c.skipped_suppressed_count + coalesce(u.skipped_suppressed, 0)
           AS skipped_suppressed_count,
         c.skipped_other_count + coalesce(u.skipped_other, 0) AS skipped_other_count,
         CASE WHEN $3::boolean THEN
           (SELECT count(*) FROM campaign_recipients r
             WHERE r.campaign_id = c.id AND r.status IN ('pending', 'sending', 'deferred'))
         END::int AS outstanding,
         CASE WHEN $3::boolean THEN
           (SELECT count(*) FROM campaign_recipients r
             WHERE r.campaign_id = c.id AND r.status = 'deferred')
         END::int AS deferred
    FROM campaigns c
    LEFT JOIN LATERAL (
      SELECT sum(delivered)::int AS delivered, sum(failed)::int AS failed,
             sum(hard_bounces)::int AS hard_bounces, sum(soft_bounces)::int AS soft_bounces,
             sum(skipped_erased)::int AS skipped_erased,
             sum(skipped_unsubscribed)::int AS skipped_unsubscribed,
             sum(skipped_bounced)::int AS skipped_bounced,
             sum(skipped_complained)::int AS skipped_complained,
             sum(skipped_suppressed)::int AS skipped_suppressed,
             sum(skipped_other)::int AS skipped_other
        FROM campaign_delivery_runs d WHERE d.campaign_id = c.id AND d.account_id = c.account_id
    ) u ON true
   WHERE c.account_id = $1 AND c.id = ANY($2::uuid[])`;
