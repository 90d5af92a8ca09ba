import { InvalidRequestError, ValidationFailedError } from '../platform/errors/api-errors';
import { utcDay } from './mail-events';

/** The default window: the last 30 days, today included. */
export const DEFAULT_DAYS = 30;
/** The longest window one request may ask for. */
export const MAX_DAYS = 366;

/**
 * `from` and `to` of GET /v1/stats: dates (`YYYY-MM-DD`, UTC days), defaults the last 30 days.
 * Not a real date → 400 (cannot be parsed); `from` after `to`, or a window over MAX_DAYS → 422.
 */
export function parseStatsWindow(
  rawFrom: unknown,
  rawTo: unknown,
  today = utcDay(new Date()),
): { from: string; to: string } {
  const to = rawTo === undefined ? today : parseDate('to', rawTo);
  const from =
    rawFrom === undefined ? addDays(to, -(DEFAULT_DAYS - 1)) : parseDate('from', rawFrom);
  if (from > to) {
    throw new ValidationFailedError([
      { field: 'from', code: 'after_to', message: '`from` must not be after `to`.' },
    ]);
  }
  if (addDays(from, MAX_DAYS - 1) < to) {
    throw new ValidationFailedError([
      { field: 'from', code: 'too_long', message: `A window is at most ${MAX_DAYS} days.` },
    ]);
  }
  return { from, to };
}

function parseDate(name: string, raw: unknown): string {
  if (typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw)) {
    const date = new Date(`${raw}T00:00:00Z`);
    const year = date.getUTCFullYear();
    if (!Number.isNaN(date.getTime()) && utcDay(date) === raw && year >= 2000 && year <= 2200) {
      return raw;
    }
  }
  throw new InvalidRequestError(`${name} must be a date (YYYY-MM-DD) between 2000 and 2200.`);
}

export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return utcDay(date);
}
