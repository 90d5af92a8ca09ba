import { Prisma } from '../../generated/prisma/client';
import { UNFINISHED } from '../ledger/campaign-ledger.sql';
import type { FeedbackKind } from '../../message-refs/feedback-report';
import type { AccountId } from '../../platform/database/account-id';
import type { ActivityKind, LedgerIntake } from '../ledger/campaign-ledger.sql';

// Every raw statement over the campaigns table. Only CampaignsRepository runs them.

/** The start of a send, shared by the send call and the schedule poller. */
const START_SENDING = Prisma.sql`
  UPDATE campaigns c
     SET status = 'sending',
         started_at = now(),
         progress_at = now(),
         updated_at = now(),
         html = CASE WHEN c.template_id IS NULL THEN c.html
                     ELSE (SELECT t.html FROM templates t
                            WHERE t.id = c.template_id AND t.account_id = c.account_id) END,
         text = CASE WHEN c.template_id IS NULL THEN c.text
                     ELSE (SELECT t.text FROM templates t
                            WHERE t.id = c.template_id AND t.account_id = c.account_id) END`;

/**
 * Claims the send: draft (or scheduled: "send now") → sending in one conditional UPDATE,
 * freezing the content (a template's html and text are copied onto the campaign).
 */
export const startSending = (accountId: AccountId, id: string) => Prisma.sql`
  ${START_SENDING}
   WHERE c.account_id = ${accountId}::uuid AND c.id = ${id}::uuid
     AND c.status IN ('draft', 'scheduled')`;

/**
 * The schedule poller's claim: a scheduled campaign whose time has come starts sending. The
 * time is checked again here, so a campaign moved to a later time meanwhile stays put.
 */
export const startScheduled = (accountId: AccountId, id: string) => Prisma.sql`
  ${START_SENDING}
   WHERE c.account_id = ${accountId}::uuid AND c.id = ${id}::uuid
     AND c.status = 'scheduled' AND c.send_at <= now()`;

/** Scheduled campaigns of every account whose time has come, oldest first (the poller). */
export const dueCampaigns = (limit: number) => Prisma.sql`
  SELECT account_id::text, id::text, from_address FROM campaigns
   WHERE status = 'scheduled' AND send_at <= now()
   ORDER BY send_at
   LIMIT ${limit}`;

/**
 * `sending` → `sent` once the audience is fully snapshotted and no recipient is pending or in
 * flight; of all the jobs that try, one matches.
 */
export const completeIfFinished = (accountId: AccountId, id: string) => Prisma.sql`
  UPDATE campaigns c
     SET status = 'sent', finished_at = now(), updated_at = now(), progress_at = now()
   WHERE c.account_id = ${accountId}::uuid AND c.id = ${id}::uuid
     AND c.status = 'sending' AND c.fanout_done_at IS NOT NULL AND c.automation_id IS NULL
     AND NOT EXISTS (SELECT 1 FROM campaign_recipients r
                      WHERE r.campaign_id = c.id AND r.${Prisma.raw(UNFINISHED)})`;

/**
 * The one query across accounts: the watchdog looks after every account's sends. Stalled: no
 * delivery run holds a live lease, nothing advanced for `idleSeconds`, and something could
 * be done now (a campaign whose unfinished recipients all wait for a later deferred try is
 * simply waiting, and its delayed jobs will come).
 */
export const stalledCampaigns = (idleSeconds: number, limit: number) => Prisma.sql`
  SELECT c.account_id::text, c.id::text FROM campaigns c
   WHERE c.status = 'sending'
     -- An automation step's campaign is idle between runs: stalled only with rows to send.
     AND (c.automation_id IS NULL OR EXISTS (SELECT 1 FROM campaign_recipients r
                                              WHERE r.campaign_id = c.id
                                                AND r.status IN ('pending', 'sending')))
     AND (c.progress_at IS NULL OR c.progress_at < now() - make_interval(secs => ${idleSeconds}))
     AND NOT EXISTS (SELECT 1 FROM campaign_delivery_runs d
                      WHERE d.campaign_id = c.id AND d.lease_until > now())
     AND NOT (c.fanout_done_at IS NOT NULL
              AND EXISTS (SELECT 1 FROM campaign_recipients r
                           WHERE r.campaign_id = c.id AND r.status = 'deferred')
              AND NOT EXISTS (SELECT 1 FROM campaign_recipients r
                               WHERE r.campaign_id = c.id
                                 AND (r.status IN ('pending', 'sending')
                                      OR (r.status = 'deferred' AND r.next_attempt_at
                                            < now() - make_interval(secs => ${idleSeconds})))))
   LIMIT ${limit}`;

/** Sending campaigns of every account: the watchdog revives them all when Redis lost its jobs. */
export const sendingCampaigns = (limit: number) => Prisma.sql`
  SELECT account_id::text, id::text FROM campaigns WHERE status = 'sending' LIMIT ${limit}`;

/**
 * The fan-out checkpoint of a sending campaign, its row locked for the batch's transaction.
 * NO KEY UPDATE, the lock the checkpoint's own UPDATE takes: it still excludes another fan-out
 * of the campaign and every writer of the row, but not the key-share lock with which a new
 * delivery run's foreign key checks that the campaign exists. FOR UPDATE would hold the start
 * of every delivery job, the first message's included, until the batch being written commits.
 */
export const lockFanoutCheckpoint = (accountId: AccountId, id: string) => Prisma.sql`
  SELECT fanout_after_id, fanout_batches, fanout_done_at, segment_id, created_at
    FROM campaigns
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND status = 'sending'
     FOR NO KEY UPDATE`;

/** Where the fan-out got to, and what it put into the ledger (plus erased skips) to count. */
export interface FanoutAdvance extends LedgerIntake {
  lastId: string | null;
  batches: number;
  done: boolean;
  erased: number;
}

/** Moves the checkpoint past a snapshotted batch and counts what it put in the ledger. */
export const advanceFanout = (accountId: AccountId, id: string, a: FanoutAdvance) => Prisma.sql`
  UPDATE campaigns
     SET fanout_after_id = ${a.lastId}::uuid,
         fanout_batches = ${a.batches},
         fanout_done_at = CASE WHEN ${a.done}::boolean THEN now() END,
         recipient_count = recipient_count + ${a.pending},
         skipped_unsubscribed_count = skipped_unsubscribed_count + ${a.unsubscribed},
         skipped_bounced_count = skipped_bounced_count + ${a.bounced},
         skipped_complained_count = skipped_complained_count + ${a.complained},
         skipped_suppressed_count = skipped_suppressed_count + ${a.suppressed},
         skipped_erased_count = skipped_erased_count + ${a.erased},
         skipped_other_count = skipped_other_count + ${a.other},
         progress_at = now()
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;

/**
 * Campaign rows in id order, the same order the delivery workers' writes take. NO KEY UPDATE,
 * the lock the counters' own UPDATE takes: FOR UPDATE would also refuse the key-share lock of
 * a new delivery run's foreign key, so every run of these campaigns would wait for the erasure.
 */
export const lockInIdOrder = (accountId: AccountId, ids: string[]) => Prisma.sql`
  SELECT 1 FROM campaigns
   WHERE account_id = ${accountId}::uuid AND id = ANY(${ids}::uuid[])
   ORDER BY id FOR NO KEY UPDATE`;

/** Erasure: `n` recipients of each campaign move from `recipients` to `skipped_erased`. */
export const countErasedSkips = (accountId: AccountId, ids: string[], counts: number[]) =>
  Prisma.sql`
    UPDATE campaigns c
       SET recipient_count = c.recipient_count - v.n,
           skipped_erased_count = c.skipped_erased_count + v.n,
           progress_at = now()
      FROM unnest(${ids}::uuid[], ${counts}::int[]) AS v(id, n)
     WHERE c.id = v.id AND c.account_id = ${accountId}::uuid`;

const ACTIVITY_COUNT: Record<ActivityKind, Prisma.Sql> = {
  // Fixed identifiers, never input: safe to splice with Prisma.raw.
  open: Prisma.raw('open_count'),
  click: Prisma.raw('click_count'),
};

/** A recipient opened or clicked for the first time. */
export const countFirstActivity = (kind: ActivityKind, accountId: AccountId, id: string) =>
  Prisma.sql`
    UPDATE campaigns SET ${ACTIVITY_COUNT[kind]} = ${ACTIVITY_COUNT[kind]} + 1
     WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;

/** Campaign counter per kind: fixed identifiers, never input, so safe to splice. */
const FEEDBACK_COUNTER: Record<FeedbackKind, Prisma.Sql> = {
  hard_bounce: Prisma.raw('bounce_count'),
  soft_bounce: Prisma.raw('soft_bounce_count'),
  complaint: Prisma.raw('complaint_count'),
  unsubscribe: Prisma.raw('unsubscribe_count'),
};

/** One bounce, complaint or unsubscribe reported after the send. */
export const countFeedback = (accountId: AccountId, id: string, kind: FeedbackKind) => {
  const column = FEEDBACK_COUNTER[kind];
  return Prisma.sql`
    UPDATE campaigns SET ${column} = ${column} + 1
     WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;
};

/**
 * Cancels a campaign that has not finished: its row locked first (a fan-out batch in flight
 * commits before this goes on, so no pending row appears after the ledger is swept).
 */
export const markCancelled = (accountId: AccountId, id: string) => Prisma.sql`
  UPDATE campaigns
     SET status = 'cancelled', cancelled_at = now(), updated_at = now(), progress_at = now()
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
     AND status IN ('draft', 'scheduled', 'sending', 'paused')`;

/** The recipients a cancellation left unsent. */
export const countCancelled = (accountId: AccountId, id: string, count: number) => Prisma.sql`
  UPDATE campaigns SET cancelled_count = cancelled_count + ${count}
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;

/** The reputation guard's limits, as the statement takes them. */
export interface RateLimits {
  complaintRate: number;
  bounceRate: number;
  minDelivered: number;
}

/**
 * The reputation guard: a sending campaign whose complaints or hard bounces over its delivered
 * messages, counted since the last resume (runs not folded yet included, in one snapshot), pass
 * their limit once enough were delivered pauses itself, in one conditional UPDATE: of several
 * workers that check at once, one pauses it. Complaints are judged first: they cost the most.
 * Returns the paused campaign and the counts it was judged on.
 */
export const pauseIfPastLimits = (accountId: AccountId, id: string, limits: RateLimits) =>
  Prisma.sql`
    WITH counted AS (
      SELECT c.id,
             c.delivered_count + coalesce(sum(d.delivered), 0) - c.guard_since_delivered
               AS delivered,
             c.bounce_count + coalesce(sum(d.hard_bounces), 0) - c.guard_since_bounces
               AS bounces,
             c.complaint_count - c.guard_since_complaints AS complaints
        FROM campaigns c
        LEFT JOIN campaign_delivery_runs d
               ON d.campaign_id = c.id AND d.account_id = c.account_id
       WHERE c.account_id = ${accountId}::uuid AND c.id = ${id}::uuid AND c.status = 'sending'
       GROUP BY c.id
    ), judged AS (
      SELECT id, delivered, bounces, complaints,
             CASE WHEN delivered < ${limits.minDelivered}::int THEN NULL
                  WHEN complaints > ${limits.complaintRate}::float8 * delivered
                    THEN 'complaint_rate'
                  WHEN bounces > ${limits.bounceRate}::float8 * delivered THEN 'bounce_rate'
             END AS reason
        FROM counted
    )
    UPDATE campaigns c
       SET status = 'paused', paused_reason = j.reason::paused_reason, updated_at = now()
      FROM judged j
     WHERE c.id = j.id AND c.account_id = ${accountId}::uuid AND c.status = 'sending'
       AND j.reason IS NOT NULL
    RETURNING c.id::text, c.name, c.status::text, c.paused_reason::text AS paused_reason,
              j.delivered::int, j.bounces::int, j.complaints::int,
              c.automation_id::text AS automation_id`;

/**
 * paused → sending, of `campaigns c`. What the guard judges starts again from here: the counts
 * so far become its baseline, so a campaign resumed after the guard paused it is judged on what
 * it sends next, not paused again at once for what it sent before.
 */
const RESUMED = Prisma.sql`
  status = 'sending', paused_reason = NULL, updated_at = now(), progress_at = now(),
  guard_since_delivered = c.delivered_count + coalesce(
    (SELECT sum(d.delivered) FROM campaign_delivery_runs d
      WHERE d.campaign_id = c.id AND d.account_id = c.account_id), 0),
  guard_since_bounces = c.bounce_count + coalesce(
    (SELECT sum(d.hard_bounces) FROM campaign_delivery_runs d
      WHERE d.campaign_id = c.id AND d.account_id = c.account_id), 0),
  guard_since_complaints = c.complaint_count`;

/** A paused campaign sends again (see RESUMED). */
export const resume = (accountId: AccountId, id: string) => Prisma.sql`
  UPDATE campaigns c SET ${RESUMED}
   WHERE c.account_id = ${accountId}::uuid AND c.id = ${id}::uuid AND c.status = 'paused'`;

/** These automation step campaigns, where paused, send again (see RESUMED); their ids. */
export const resumeStepCampaigns = (accountId: AccountId, ids: string[]) => Prisma.sql`
  UPDATE campaigns c SET ${RESUMED}
   WHERE c.account_id = ${accountId}::uuid AND c.id = ANY(${ids}::uuid[])
     AND c.automation_id IS NOT NULL AND c.status = 'paused'
  RETURNING c.id::text`;

/** Numbers the next delivery batch of an automation step's campaign for `count` recipients. */
export const nextStepBatch = (accountId: AccountId, id: string, count: number) => Prisma.sql`
  UPDATE campaigns
     SET fanout_batches = fanout_batches + 1, recipient_count = recipient_count + ${count},
         progress_at = now()
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND automation_id IS NOT NULL
  RETURNING fanout_batches AS batch`;
