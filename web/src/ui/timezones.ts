/** The browser's own time zone (an IANA name such as `Europe/Paris`). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Every IANA time zone the browser knows, the browser's own and UTC included. */
export function timeZones(): string[] {
  const known = Intl.supportedValuesOf('timeZone');
  return [...new Set([browserTimeZone(), 'UTC', ...known])].sort((a, b) => a.localeCompare(b));
}

/** How far `zone` is ahead of UTC at `instant`, in minutes (negative west of Greenwich). */
export function zoneOffsetMinutes(zone: string, instant: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const field = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((part) => part.type === type)?.value ?? 0);
  const wall = Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour'),
    field('minute'),
    field('second'),
  );
  return Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/**
 * A wall-clock time as a `datetime-local` input holds it (`2026-12-01T09:00`) read in `zone`,
 * written as the API takes it: the same digits with that zone's offset at that moment
 * (`2026-12-01T09:00:00+01:00`), daylight saving time included. Undefined when unreadable.
 */
export function wallTimeInZone(local: string, zone: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return undefined;
  const [, year, month, day, hour, minute] = match.map(Number);
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  // The offset at the guessed instant, then again at the corrected one: across a change of
  // offset (the night clocks move) the second reading is the one in force then.
  const first = zoneOffsetMinutes(zone, new Date(asUtc));
  const offset = zoneOffsetMinutes(zone, new Date(asUtc - first * 60_000));
  return `${local}:00${formatOffset(offset)}`;
}

/** `+01:00`, `-05:30`, `+00:00`. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An instant as the digits a `datetime-local` input shows for it in `zone`. */
export function localInputValue(instant: Date, zone: string): string {
  const shifted = new Date(instant.getTime() + zoneOffsetMinutes(zone, instant) * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/** An instant in `zone`, with the zone named: "1 Dec 2026, 09:00 (Europe/Paris)". */
export function formatInZone(iso: string, zone: string): string {
  const text = new Intl.DateTimeFormat(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: zone,
  }).format(new Date(iso));
  return `${text} (${zone})`;
}
