/**
 * The pause before retry number `attempt` (from 1): `firstMs`, then twice as long each time,
 * never more than `maxMs`. Soon after a short blip, and no faster than `maxMs` against a
 * store that stays away, so a long outage costs it one attempt per `maxMs`.
 */
export function doublingDelay(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(firstMs * 2 ** Math.max(attempt - 1, 0), maxMs);
}
