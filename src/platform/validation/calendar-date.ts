/**
 * Dates as clients write them: `2024-05-01` (midnight UTC) or a date-time with its offset
 * (`2024-05-01T10:00:00Z`, `…+02:00`). Only the extended ISO 8601 form: `new Date()` reads the
 * basic form (`20240501`) as Invalid Date and rolls `2024-02-31` over to March, and Date.UTC
 * takes years 0–99 for 1900–1999, so the fields are checked here, by hand.
 */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export interface ParsedDate {
  /** The calendar date as written, `YYYY-MM-DD`. */
  day: string;
  instant: Date;
}

export function parseIsoDate(text: string): ParsedDate | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, offset] = match;
  if (!isCalendarDay(Number(year), Number(month), Number(day))) return undefined;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59)) return undefined;
  if (second !== undefined && Number(second) > 59) return undefined;
  if (offset !== undefined && offset !== 'Z' && !isOffset(offset)) return undefined;
  const instant = new Date(hour === undefined ? `${year}-${month}-${day}T00:00:00Z` : text);
  if (Number.isNaN(instant.getTime())) return undefined;
  return { day: `${year}-${month}-${day}`, instant };
}

/** Whether the written date lies within [from, until], both `YYYY-MM-DD` (they compare as text). */
export function isDayWithin(parsed: ParsedDate, from: string, until: string): boolean {
  return parsed.day >= from && parsed.day <= until;
}

/**
 * Today's date where it is latest on Earth (UTC+14): a date of birth written in any time
 * zone is never "in the future" while it is already that day somewhere.
 */
export function latestToday(now = new Date()): string {
  return new Date(now.getTime() + 14 * 3600_000).toISOString().slice(0, 10);
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= days[month - 1];
}

function isOffset(offset: string): boolean {
  const hours = Number(offset.slice(1, 3));
  const minutes = Number(offset.slice(4, 6));
  return hours <= 14 && minutes <= 59;
}
