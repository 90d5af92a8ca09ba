/** SMTP submission's tuning (README, "Send over SMTP"). */

/** Envelope recipients per message; past it, 452 for the rest (RFC 5321 asks servers for 100). */
export const MAX_RECIPIENTS = 50;
/** Failed AUTH attempts one client address may make within the window; then 421. */
export const AUTH_FAILURES_PER_ADDRESS = 10;
export const AUTH_FAILURE_WINDOW_MS = 10 * 60_000;
/** Connections open at once, from everyone. */
export const MAX_CLIENTS = 200;
/** Connections open at once from one client address (an application's mail pool needs a few). */
export const CONNECTIONS_PER_ADDRESS = 20;
/** New connections per client address per minute. */
export const CONNECTIONS_PER_MINUTE = 300;
/** An idle connection is closed after this long. */
export const SOCKET_TIMEOUT_MS = 60_000;
/** How long a self-signed certificate made at start is valid (one is made at every start). */
export const SELF_SIGNED_VALID_DAYS = 365;
