/** SQLSTATEs that say "try again": the server is going away or coming up, or a lock conflict. */
const TRANSIENT_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '53300', // too_many_connections
  '40P01', // deadlock_detected: the victim's transaction may simply run again
  '40001', // serialization_failure
]);
/** Socket errors of a server that is unreachable or went away. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
/** node-postgres reports a connection that died under it in words, without a code. */
const LOST_CONNECTION =
  /connection terminated|not queryable|timeout exceeded when trying to connect|server closed the connection/i;

/**
 * Whether a database error is the store being away or a lock conflict, i.e. whether the same
 * statement can succeed if tried again later. Anything else (a constraint, a bug) cannot.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (TRANSIENT_SQLSTATES.has(code) || code.startsWith('08') || SOCKET_CODES.has(code)) {
      return true;
    }
  }
  return LOST_CONNECTION.test(error.message);
}
