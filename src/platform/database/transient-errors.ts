import { isDatabaseUnavailable } from './database-unavailable';

/** SQLSTATEs of a lock conflict: the victim's transaction may simply run again. */
const LOCK_CONFLICTS = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

/**
 * Whether a database error is the store being away or a lock conflict, i.e. whether the same
 * statement can succeed if tried again later. Anything else (a constraint, a bug) cannot.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && LOCK_CONFLICTS.has(code);
}
