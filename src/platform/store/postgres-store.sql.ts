// The PostgreSQL shared store's statements (pg text, run on PgPool). Only PostgresStore runs them.

/**
 * Sets a mark unless one is set and unexpired; a row comes back when this call set it.
 * $1 key, $2 milliseconds to live (null: until removed).
 */
export const MARK_IF_ABSENT = `INSERT INTO store_marks (key, expires_at)
  VALUES ($1, clock_timestamp() + $2::float8 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE store_marks.expires_at IS NOT NULL AND store_marks.expires_at <= clock_timestamp()
  RETURNING 1 AS set`;

/** $1 key. */
export const UNMARK = `DELETE FROM store_marks WHERE key = $1`;

/** The store's clock in milliseconds, the same for every process. */
export const NOW_MS = `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now_ms`;

/**
 * Creates the buckets that do not exist yet, full. $1 keys (sorted, so that two takers lock
 * rows in the same order), $2 burst, $3 now in ms.
 */
export const CREATE_BUCKETS = `INSERT INTO store_token_buckets (key, tokens, at_ms, expires_at)
  SELECT key, $2, $3, clock_timestamp() + interval '1 minute' FROM unnest($1::text[]) AS key
  ORDER BY key
  ON CONFLICT (key) DO NOTHING`;

/** Locks the buckets for the rest of the transaction. $1 keys. */
export const LOCK_BUCKETS = `SELECT key, tokens, at_ms::float8 AS at_ms FROM store_token_buckets
  WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`;

/** $1 key, $2 tokens, $3 now in ms, $4 milliseconds to keep it. */
export const SAVE_BUCKET = `UPDATE store_token_buckets
  SET tokens = $2, at_ms = $3, expires_at = clock_timestamp() + $4::float8 * interval '1 millisecond'
  WHERE key = $1`;

/** Expired marks and buckets, a batch at a time. $1 batch size. */
export const SWEEP_MARKS = `DELETE FROM store_marks WHERE key IN (
  SELECT key FROM store_marks WHERE expires_at <= clock_timestamp() LIMIT $1)`;
export const SWEEP_BUCKETS = `DELETE FROM store_token_buckets WHERE key IN (
  SELECT key FROM store_token_buckets WHERE expires_at <= clock_timestamp() LIMIT $1)`;

/** Where rate-limiter-flexible's PostgreSQL store keeps its counters. */
export const COUNTERS_TABLE = 'store_counters';
