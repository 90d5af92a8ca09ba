// The exports module's raw statements (pg text). Only ExportsRepository runs them.

/** Starts (or restarts from nothing) an export. $1 account, $2 export. */
export const START = `UPDATE subscriber_exports
   SET status = 'running', rows = 0, progress_at = now()
 WHERE account_id = $1 AND id = $2 AND status IN ('queued', 'running')
 RETURNING id, segment_id AS "segmentId", file_id AS "fileId"`;

/** $1 account, $2 export, $3 rows. */
export const PROGRESS = `UPDATE subscriber_exports SET rows = $3, progress_at = now()
 WHERE account_id = $1 AND id = $2 AND status = 'running'`;

/** $1 account, $2 export, $3 file, $4 rows, $5 expires at. */
export const FINISH = `UPDATE subscriber_exports
   SET status = 'done', file_id = $3, rows = $4, finished_at = now(), progress_at = now(),
       expires_at = $5
 WHERE account_id = $1 AND id = $2 AND status = 'running'`;

/** $1 account, $2 export, $3 reason. */
export const FAIL = `UPDATE subscriber_exports
   SET status = 'failed', failure_reason = $3, finished_at = now(), progress_at = now()
 WHERE account_id = $1 AND id = $2 AND status IN ('queued', 'running')`;

/**
 * Expires finished exports whose time is up, across accounts (the sweep), returning their
 * files to delete in the same transaction. $1 limit.
 */
export const EXPIRE_DUE = `WITH due AS (
   SELECT id, account_id, file_id FROM subscriber_exports
    WHERE status = 'done' AND expires_at < now() LIMIT $1 FOR UPDATE SKIP LOCKED)
 UPDATE subscriber_exports e SET status = 'expired', file_id = NULL
   FROM due WHERE e.id = due.id
 RETURNING due.account_id AS "accountId", due.file_id AS "fileId"`;

/** Every finished export of an account expires at once (an erasure). $1 account. */
export const EXPIRE_ACCOUNT = `WITH expired AS (
   SELECT id, file_id FROM subscriber_exports
    WHERE account_id = $1 AND status = 'done' FOR UPDATE)
 UPDATE subscriber_exports e SET status = 'expired', file_id = NULL
   FROM expired WHERE e.id = expired.id
 RETURNING expired.file_id AS "fileId"`;

/** Queued or running exports idle for a while, across accounts. $1 idle seconds, $2 limit. */
export const STALLED = `SELECT id, account_id AS "accountId" FROM subscriber_exports
 WHERE status IN ('queued', 'running')
   AND coalesce(progress_at, created_at) < now() - make_interval(secs => $1)
 ORDER BY coalesce(progress_at, created_at) LIMIT $2`;
