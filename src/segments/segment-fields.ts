import { Prisma } from '../generated/prisma/client';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { PROFILE_FIELDS } from '../subscribers/subscriber-fields';

/** How a subscriber field compares: plain text, a text array, a point in time, or a JSON value. */
export type FieldType = 'text' | 'list' | 'date' | 'custom';

export const OPERATORS = [
  'eq',
  'neq',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'exists',
  'not_exists',
  'before',
  'after',
] as const;

export type Operator = (typeof OPERATORS)[number];

export const OPERATORS_BY_TYPE: Readonly<Record<FieldType, readonly Operator[]>> = {
  text: ['eq', 'neq', 'in', 'not_in', 'exists', 'not_exists'],
  list: ['contains', 'not_contains', 'in', 'not_in', 'exists', 'not_exists'],
  date: ['before', 'after', 'exists', 'not_exists'],
  custom: ['eq', 'neq', 'in', 'not_in', 'exists', 'not_exists'],
};

export interface ColumnField {
  readonly type: Exclude<FieldType, 'custom'>;
  /** Always one of the constants below: the only SQL text a filter can choose. */
  readonly column: Prisma.Sql;
  /** Applied to compared values, so they meet the column as it is stored. */
  readonly normalize?: (value: string) => string;
}

const column = (name: string, type: ColumnField['type']): ColumnField => ({
  type,
  column: Prisma.raw(`s.${name}`),
});

/**
 * The whitelist of filterable subscriber fields (API name → column of `subscribers s`).
 * A Map, not an object literal, so names like `__proto__` or `constructor` find nothing.
 */
export const SUBSCRIBER_FIELDS: ReadonlyMap<string, ColumnField> = new Map([
  // Emails are unique case-insensitively, so they are matched the same way.
  ['email', { type: 'text', column: Prisma.raw('s.email_normalized'), normalize: normalizeEmail }],
  // The profile fields, text first, then lists and dates, as the table names them.
  ...(['text', 'list', 'date'] as const).flatMap((type) =>
    PROFILE_FIELDS.filter((field) => field.kind === type).map(
      (field) => [field.name, column(field.name, type)] as [string, ColumnField],
    ),
  ),
  ['created_at', column('created_at', 'date')],
  ['updated_at', column('updated_at', 'date')],
  ['last_sent_at', column('last_sent_at', 'date')],
  ['last_open_at', column('last_open_at', 'date')],
  ['last_click_at', column('last_click_at', 'date')],
] satisfies [string, ColumnField][]);

/** `custom_fields.<key>` addresses one top-level key of the subscriber's custom fields. */
export const CUSTOM_FIELD_PREFIX = 'custom_fields.';
export const MAX_CUSTOM_KEY_LENGTH = 200;
