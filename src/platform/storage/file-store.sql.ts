// The file store's raw statements (pg text, run on PgPool). Only FileStore runs them.

/** $1 id, $2 account, $3 purpose. */
export const CREATE_FILE = `INSERT INTO stored_files (id, account_id, purpose) VALUES ($1, $2, $3)`;

/** $1 file, $2 seq, $3 bytes. */
export const INSERT_CHUNK = `INSERT INTO stored_file_chunks (file_id, seq, data) VALUES ($1, $2, $3)`;

/** $1 account, $2 file, $3 total bytes. */
export const COMPLETE_FILE = `UPDATE stored_files SET bytes = $3, completed_at = now()
  WHERE account_id = $1 AND id = $2`;

/** One chunk of a completed file of the account, or none past the end. $1 account, $2 file, $3 seq. */
export const READ_CHUNK = `SELECT c.data FROM stored_file_chunks c
  JOIN stored_files f ON f.id = c.file_id
  WHERE f.account_id = $1 AND f.id = $2 AND f.completed_at IS NOT NULL AND c.seq = $3`;

/** $1 account, $2 file. Chunks go with it (ON DELETE CASCADE). */
export const DELETE_FILE = `DELETE FROM stored_files WHERE account_id = $1 AND id = $2`;

/** Files of the account (an erasure discards stored exports). $1 account, $2 ids. */
export const DELETE_FILES = `DELETE FROM stored_files WHERE account_id = $1 AND id = ANY($2::uuid[])`;

/**
 * Uploads that never completed (the client went away, the process died mid-upload), of every
 * account: the import watchdog serves them all. $1 cutoff, $2 limit.
 */
export const DELETE_ABANDONED = `DELETE FROM stored_files WHERE id IN (
  SELECT id FROM stored_files WHERE completed_at IS NULL AND created_at < $1 LIMIT $2)`;
