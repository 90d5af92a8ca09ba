import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { ActivityKind } from './campaign-ledger.sql';

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

/** Scheduled campaigns whose time has come, oldest first: the one query across accounts. */
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
     AND c.status = 'sending' AND c.fanout_done_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM campaign_recipients r
                      WHERE r.campaign_id = c.id AND r.status IN ('pending', 'sending'))`;

/** The one query across accounts: the watchdog looks after every account's sends. */
export const stalledCampaigns = (idleSeconds: number, limit: number) => Prisma.sql`
  SELECT account_id::text, id::text FROM campaigns
   WHERE status = 'sending'
     AND (progress_at IS NULL OR progress_at < now() - make_interval(secs => ${idleSeconds}))
   LIMIT ${limit}`;

/** The fan-out checkpoint of a sending campaign, its row locked for the batch's transaction. */
export const lockFanoutCheckpoint = (accountId: AccountId, id: string) => Prisma.sql`
  SELECT fanout_after_id, fanout_batches, fanout_done_at, segment_id, created_at
    FROM campaigns
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND status = 'sending'
     FOR UPDATE`;

export interface FanoutAdvance {
  lastId: string | null;
  batches: number;
  done: boolean;
  pending: number;
  unsubscribed: number;
  bounced: number;
  complained: number;
  suppressed: number;
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
         progress_at = now()
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;

/**
 * Campaign row first: the lock order every writer of counters and subscriber statistics
 * keeps. $1 campaign, $2 account.
 */
export const LOCK_FOR_OUTCOMES = `SELECT 1 FROM campaigns WHERE id = $1 AND account_id = $2 FOR UPDATE`;

/**
 * Counters after a chunk of outcomes. $1 campaign, $2 account, $3 delivered, $4 failed,
 * $5 hard bounces, $6 skipped (leave `recipients`), $7–$11 skipped as erased, unsubscribed,
 * bounced, complained, suppressed, $12 soft bounces.
 */
export const COUNT_OUTCOMES = `
  UPDATE campaigns
     SET delivered_count = delivered_count + $3,
         failed_count = failed_count + $4,
         bounce_count = bounce_count + $5,
         recipient_count = recipient_count - $6,
         skipped_erased_count = skipped_erased_count + $7,
         skipped_unsubscribed_count = skipped_unsubscribed_count + $8,
         skipped_bounced_count = skipped_bounced_count + $9,
         skipped_complained_count = skipped_complained_count + $10,
         skipped_suppressed_count = skipped_suppressed_count + $11,
         soft_bounce_count = soft_bounce_count + $12,
         progress_at = now()
   WHERE id = $1 AND account_id = $2`;

/** Campaign rows in id order, the same order the delivery workers' writes take. */
export const lockInIdOrder = (accountId: AccountId, ids: string[]) => Prisma.sql`
  SELECT 1 FROM campaigns
   WHERE account_id = ${accountId}::uuid AND id = ANY(${ids}::uuid[])
   ORDER BY id FOR UPDATE`;

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

/** What a delivery report says happened to one campaign message. */
export type FeedbackKind = 'hard_bounce' | 'soft_bounce' | 'complaint' | 'unsubscribe';

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
