// The imports module's raw statements (pg text). Only ImportsRepository runs them.

/** Moves a queued (or resumed) import to running. $1 account, $2 import. */
export const START = `UPDATE subscriber_imports
   SET status = 'running', started_at = coalesce(started_at, now()), progress_at = now()
 WHERE account_id = $1 AND id = $2 AND status IN ('queued', 'running')
 RETURNING id, mode, columns, file_id AS "fileId", rows_total AS "rowsTotal",
           rows_processed AS "rowsProcessed", api_key_id AS "apiKeyId", user_id AS "userId"`;

/** $1 account, $2 import, $3 rows. */
export const SET_TOTAL = `UPDATE subscriber_imports SET rows_total = $3, progress_at = now()
 WHERE account_id = $1 AND id = $2`;

/**
 * Locks the import row for a batch's transaction and reads its checkpoint: a second runner of
 * the same import (a job BullMQ thought stalled) waits here, then sees the checkpoint moved.
 * $1 account, $2 import.
 */
export const LOCK_CHECKPOINT = `SELECT rows_processed AS "rowsProcessed", status FROM subscriber_imports
 WHERE account_id = $1 AND id = $2 FOR UPDATE`;

/**
 * Advances the checkpoint and the counters by one batch. The total counted at the upload can
 * fall short of the parser's on a malformed file: it never shows less than what is done.
 * $1 account, $2 import, $3…
 */
export const ADVANCE = `UPDATE subscriber_imports
   SET rows_processed = $3, rows_total = greatest(rows_total, $3), created = created + $4, updated = updated + $5,
       unchanged = unchanged + $6, skipped_erased = skipped_erased + $7, failed = failed + $8,
       progress_at = now()
 WHERE account_id = $1 AND id = $2`;

/** Row errors of a batch from a JSON array of {row, field, message}. $1 import, $2 rows. */
export const INSERT_ERRORS = `INSERT INTO subscriber_import_errors (import_id, row, field, message)
  SELECT $1, r.row, r.field, r.message
    FROM jsonb_to_recordset($2::jsonb) AS r(row int, field text, message text)
  ON CONFLICT DO NOTHING`;

/** The total becomes what the parser found, whatever the upload counted. $1 account, $2 import. */
export const FINISH = `UPDATE subscriber_imports
   SET status = 'done', rows_total = rows_processed, finished_at = now(), progress_at = now(), file_id = NULL
 WHERE account_id = $1 AND id = $2 AND status = 'running'`;

/** $1 account, $2 import, $3 reason. */
export const FAIL = `UPDATE subscriber_imports
   SET status = 'failed', failure_reason = $3, finished_at = now(), progress_at = now(), file_id = NULL
 WHERE account_id = $1 AND id = $2 AND status IN ('queued', 'running')`;

/** Errors of an import by row, keyset on (row, field). $1 import, $2 after row, $3 after field, $4 limit. */
export const ERRORS_PAGE = `SELECT row, field, message FROM subscriber_import_errors
 WHERE import_id = $1 AND (row, field) > ($2, $3)
 ORDER BY row, field LIMIT $4`;

/**
 * Imports, across accounts, that are queued or running but have not advanced for a while:
 * their job was lost (Redis) or their worker died. $1 idle seconds, $2 limit.
 */
export const STALLED = `SELECT id, account_id AS "accountId" FROM subscriber_imports
 WHERE status IN ('queued', 'running')
   AND coalesce(progress_at, created_at) < now() - make_interval(secs => $1)
 ORDER BY coalesce(progress_at, created_at) LIMIT $2`;
