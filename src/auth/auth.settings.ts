/** API key verification's tuning constants: what a process caches, and for how long. */

/** api_keys.last_used_at is written at most this often per key, to keep writes off the hot path. */
export const KEY_TOUCH_INTERVAL_MS = 60_000;

/**
 * How long a process trusts an API key it verified without reading api_keys again. Changes to
 * a key reach every API process at once through PostgreSQL's notifications (ApiKeyCache);
 * this is the bound for one that was missed, i.e. the longest a revoked key can still work.
 */
export const KEY_CACHE_TTL_MS = 10_000;

/** Verified keys one process keeps; past it the oldest is dropped (read again when used). */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

/** How long start-up waits for the key change listener, so the cache is on from the start. */
export const KEY_CHANGES_CONNECT_WAIT_MS = 2_000;

/** First retry of a lost key change listener, doubling up to the maximum. */
export const KEY_CHANGES_RECONNECT_MS = 1_000;
export const KEY_CHANGES_RECONNECT_MAX_MS = 30_000;
