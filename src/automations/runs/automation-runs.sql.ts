import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';

// Every statement over automation_runs and automation_run_steps. AutomationRunsRepository
// runs them all.

/** Reasons a run leaves when its subscriber stops being mailable, as the exits sweep sees them. */
export const EXIT_REASON_SQL = `CASE
    WHEN s.id IS NULL THEN 'erased'
    WHEN s.status IN ('unsubscribed', 'bounced', 'complained') THEN s.status
    WHEN EXISTS (SELECT 1 FROM suppressions x
                  WHERE x.account_id = s.account_id AND x.email_normalized = s.email_normalized)
      THEN 'suppressed'
    END`;

/**
 * Serialises the enrolments of one automation, for the length of the transaction: the reentry
 * rule reads the subscriber's earlier runs, which a concurrent enrolment could be writing.
 */
export const lockAutomation = (automationId: string) => Prisma.sql`
  SELECT pg_advisory_xact_lock(hashtextextended(${'automation-enrolment:' + automationId}, 0))::text`;

/**
 * Enrols these subscribers (each with the key of what triggered it) when they exist in the
 * account, match `filter` (a condition over `subscribers s`) and the reentry rule lets them
 * in; the first step is due at once. Returns the runs created.
 */
export const enrol = (
  accountId: AccountId,
  automationId: string,
  firstStepId: string,
  reentry: string,
  entries: { ids: string[]; subscriberIds: string[]; keys: string[] },
  filter: Prisma.Sql,
) => Prisma.sql`
  INSERT INTO automation_runs
         (id, account_id, automation_id, subscriber_id, entry, trigger_key, status,
          current_step_id, next_step_at)
  SELECT e.id, ${accountId}::uuid, ${automationId}::uuid, s.id,
         (SELECT count(*) FROM automation_runs p
           WHERE p.automation_id = ${automationId}::uuid AND p.subscriber_id = s.id)::int,
         e.key, 'waiting', ${firstStepId}, now()
    FROM unnest(${entries.ids}::uuid[], ${entries.subscriberIds}::uuid[], ${entries.keys}::text[])
           AS e(id, subscriber_id, key)
    JOIN subscribers s ON s.id = e.subscriber_id AND s.account_id = ${accountId}::uuid
   WHERE ${filter}
     AND (${reentry} = 'always' OR NOT EXISTS (
           SELECT 1 FROM automation_runs p
            WHERE p.automation_id = ${automationId}::uuid AND p.subscriber_id = s.id
              AND (${reentry} = 'never' OR p.status = 'waiting')))
  ON CONFLICT DO NOTHING
  RETURNING id::text, subscriber_id::text`;

/**
 * Up to $1 runs whose next step is due, of active automations, locked for the engine's
 * transaction; runs another engine holds are skipped. Found through automation_runs_due_idx.
 */
export const CLAIM_DUE = `
  SELECT r.id::text, r.account_id::text, r.automation_id::text, r.subscriber_id::text,
         r.entry, r.current_step_id, r.in_wait
    FROM automation_runs r
   WHERE r.status = 'waiting' AND r.next_step_at <= now()
     AND EXISTS (SELECT 1 FROM automations a
                  WHERE a.id = r.automation_id AND a.status = 'active')
   ORDER BY r.next_step_at
   LIMIT $1
     FOR UPDATE OF r SKIP LOCKED`;

/** Where each claimed run goes: parallel arrays, one item per run. */
export const ADVANCE = `
  UPDATE automation_runs r
     SET status = v.status::automation_run_status, current_step_id = v.step,
         in_wait = v.in_wait, next_step_at = v.next_at, exit_reason = v.reason,
         ended_at = CASE WHEN v.status = 'waiting' THEN NULL ELSE now() END
    FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bool[], $5::timestamptz[], $6::text[])
           AS v(id, status, step, in_wait, next_at, reason)
   WHERE r.id = v.id AND r.status = 'waiting'`;

/** Timeline rows: parallel arrays of run, step id, type, status, message id. */
export const RECORD_STEPS = `
  INSERT INTO automation_run_steps (run_id, step_id, type, status, message_id)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])`;

/**
 * Waiting runs whose subscriber is no longer mailable leave, with the reason; returns them.
 * Up to $1 a pass (the next pass takes the rest).
 */
export const EXIT_UNMAILABLE = `
  WITH leaving AS (
    SELECT r.id, ${EXIT_REASON_SQL} AS reason
      FROM automation_runs r
      LEFT JOIN subscribers s ON s.id = r.subscriber_id
     WHERE r.status = 'waiting'
       AND (s.id IS NULL OR s.status IN ('unsubscribed', 'bounced', 'complained')
            OR EXISTS (SELECT 1 FROM suppressions x
                        WHERE x.account_id = s.account_id
                          AND x.email_normalized = s.email_normalized))
     LIMIT $1
       FOR UPDATE OF r SKIP LOCKED)
  UPDATE automation_runs r
     SET status = 'exited', exit_reason = l.reason, ended_at = now(), next_step_at = NULL,
         in_wait = false
    FROM leaving l
   WHERE r.id = l.id
  RETURNING r.id::text, r.account_id::text, r.automation_id::text, r.subscriber_id::text,
            r.exit_reason, r.ended_at`;

/** Erasure: the person's waiting runs exit, and no run keeps their id. */
export const exitErased = (accountId: AccountId, subscriberId: string) => Prisma.sql`
  UPDATE automation_runs
     SET status = CASE WHEN status = 'waiting' THEN 'exited'::automation_run_status ELSE status END,
         exit_reason = CASE WHEN status = 'waiting' THEN 'erased' ELSE exit_reason END,
         ended_at = coalesce(ended_at, now()), next_step_at = NULL, in_wait = false,
         subscriber_id = NULL
   WHERE account_id = ${accountId}::uuid AND subscriber_id = ${subscriberId}::uuid
  RETURNING id::text, automation_id::text, exit_reason, ended_at`;

/** Cancels one waiting run; returns it when it was waiting. */
export const cancelRun = (accountId: AccountId, id: string) => Prisma.sql`
  UPDATE automation_runs
     SET status = 'cancelled', ended_at = now(), next_step_at = NULL, in_wait = false
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND status = 'waiting'
  RETURNING id::text`;

/** Cancels every waiting run of an automation (it is being deleted). */
export const cancelAutomationRuns = (accountId: AccountId, automationId: string) => Prisma.sql`
  UPDATE automation_runs
     SET status = 'cancelled', ended_at = now(), next_step_at = NULL, in_wait = false
   WHERE account_id = ${accountId}::uuid AND automation_id = ${automationId}::uuid
     AND status = 'waiting'`;

/**
 * After an edit, runs waiting on a step that no longer exists leave (`step_removed`), at once
 * rather than when due. Returns them.
 */
export const exitRemovedSteps = (accountId: AccountId, automationId: string, stepIds: string[]) =>
  Prisma.sql`
  UPDATE automation_runs
     SET status = 'exited', exit_reason = 'step_removed', ended_at = now(), next_step_at = NULL,
         in_wait = false
   WHERE account_id = ${accountId}::uuid AND automation_id = ${automationId}::uuid
     AND status = 'waiting' AND NOT (current_step_id = ANY(${stepIds}::text[]))
  RETURNING id::text, subscriber_id::text, exit_reason, ended_at`;

/** Runs per status and exit reason, for the automation's stats. */
export const runCounts = (accountId: AccountId, automationId: string) => Prisma.sql`
  SELECT status::text, exit_reason, count(*)::int AS n
    FROM automation_runs
   WHERE account_id = ${accountId}::uuid AND automation_id = ${automationId}::uuid
   GROUP BY 1, 2`;

/** How many runs entered each step. */
export const stepEntries = (accountId: AccountId, automationId: string) => Prisma.sql`
  SELECT t.step_id, count(*)::int AS n
    FROM automation_run_steps t
    JOIN automation_runs r ON r.id = t.run_id
   WHERE r.account_id = ${accountId}::uuid AND r.automation_id = ${automationId}::uuid
   GROUP BY t.step_id`;
