import { isDatabaseUnavailable } from './database-unavailable';

/** SQLSTATEs of a statement that lost a race or ran out of time: it may simply run again. */
const RETRYABLE_STATES = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
  '55P03', // lock_not_available
  // query_canceled: the statement timeout (or an operator) cancelled it, typically under a
  // load that passes; the same statement, planned afresh, may well finish the next time.
  '57014',
]);

/**
 * Whether a database error is the store being away, a lock conflict or a cancelled statement,
 * i.e. whether the same statement can succeed if tried again later. Anything else (a
 * constraint, a bug) cannot.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_STATES.has(code);
}
