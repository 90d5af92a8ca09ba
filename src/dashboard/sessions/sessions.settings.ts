/** Dashboard sessions' tuning constants. */

/** A dashboard session's last_seen_at (and idle deadline) moves at most this often. */
export const SESSION_TOUCH_INTERVAL_MS = 5 * 60_000;
