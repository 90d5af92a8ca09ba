import type { ErrorDetail } from '../platform/errors/api-errors';
import { CUSTOM_FIELDS, STATISTICS } from './subscriber-limits';

/**
 * Objects merged into what a subscriber has (custom fields of a CSV row, statistics) are
 * checked against the limits the DTO sets on each item alone: a row of 10 keys must not take a
 * subscriber that has 95 past 100, nor may PATCHes grow the statistics a few keys at a time.
 * `columns` are the changed columns and their values; the first one over its limit is named.
 */
const MERGED_LIMITS = [
  ['customFields', 'custom_fields', CUSTOM_FIELDS],
  ['importedStats', 'statistics', STATISTICS],
] as const;

export function mergedOverLimit(columns: [string, unknown][]): ErrorDetail | undefined {
  for (const [column, value] of columns) {
    const limit = MERGED_LIMITS.find(([name]) => name === column);
    if (!limit || typeof value !== 'object' || value === null) continue;
    const [, field, { maxKeys, maxBytes }] = limit;
    const keys = Object.keys(value).length;
    if (keys > maxKeys) {
      return {
        field,
        code: 'too_many_keys',
        message: `${field} would have ${keys} keys with those the subscriber has; at most ${maxKeys}.`,
      };
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > maxBytes) {
      return {
        field,
        code: 'too_large',
        message: `${field} would take ${Math.ceil(bytes / 1024)} KiB as JSON with what the subscriber has; at most ${maxBytes / 1024} KiB.`,
      };
    }
  }
  return undefined;
}
