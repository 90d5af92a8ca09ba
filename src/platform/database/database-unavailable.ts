/**
 * Whether an error means PostgreSQL cannot be reached right now (stopped, restarting, the
 * connection dropped, every connection slot taken) rather than that a statement is wrong: an
 * outage to wait out, not a bug to report. The same statement will work once the server is
 * back, so callers retry it (outcome writes) or tell the client to (the API's 500 with Retry-After).
 *
 * The error may come from pg itself, or from Prisma wrapping pg's through @prisma/adapter-pg,
 * so the check walks `cause` chains (and the driver error a Prisma error carries in its meta)
 * and reads codes and kinds of all three.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (!current || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    const shape = current as ErrorShape;
    if (unavailableItself(shape)) return true;
    pending.push(shape.cause, shape.meta?.driverAdapterError);
  }
  return false;
}

interface ErrorShape {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** Node socket errors on the way to the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of an unreachable or departing server: class 08 (connection exception), the
 * shutdown and start-up refusals of class 57, and no free connection slot.
 */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') ||
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now (starting up, in recovery)
    code === '53300' // too_many_connections
  );
}

/** Prisma's codes for the same: cannot reach, timed out, connection closed, pool timeout. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** @prisma/adapter-pg's kinds of driver errors that are about the connection. */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/** pg's own words (lower-cased) when a connection ends under it or was already broken. */
const PG_MESSAGES = [
  'connection terminated',
  'not queryable',
  'timeout exceeded when trying to connect',
  'server closed the connection',
];

function unavailableItself(error: ErrorShape): boolean {
  const { code, kind, message } = error;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || PRISMA_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code)) return true;
  }
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  if (typeof message !== 'string') return false;
  const lower = message.toLowerCase();
  return PG_MESSAGES.some((words) => lower.includes(words));
}
