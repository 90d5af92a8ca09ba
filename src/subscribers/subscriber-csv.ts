import type { Subscriber } from '../generated/prisma/client';
import { restoreCell } from '../platform/csv/formula-cells';
import { PROFILE_FIELDS, ProfileField } from './subscriber-fields';

/**
 * How subscribers look in CSV, both ways: which column is which field when a file is
 * imported, how a cell becomes a field's value, and how an export writes them so that an
 * import reads the file back unchanged.
 */

/** The profile fields that are one column each (custom fields are a column per key). */
const CSV_PROFILE_FIELDS = PROFILE_FIELDS.filter(
  (field): field is Exclude<(typeof PROFILE_FIELDS)[number], { kind: 'custom' }> =>
    field.kind !== 'custom',
);

export type CsvField =
  'id' | 'email' | (typeof CSV_PROFILE_FIELDS)[number]['name'] | 'created_at' | 'updated_at';

/** The subscriber fields a column can hold, in the order an export writes them. */
export const CSV_FIELDS: readonly CsvField[] = [
  'id',
  'email',
  ...CSV_PROFILE_FIELDS.map((field) => field.name),
  'created_at',
  'updated_at',
];

/** A column's target: a field, a key of custom_fields (`custom_fields.<key>`), or null (skipped). */
export type ColumnTarget = CsvField | `custom_fields.${string}` | null;

export interface CsvColumn {
  header: string;
  target: ColumnTarget;
}

export const CUSTOM_PREFIX = 'custom_fields.';
const KIND_OF: ReadonlyMap<string, ProfileField['kind']> = new Map(
  PROFILE_FIELDS.map((field) => [field.name, field.kind]),
);
const MAX_KEY_LENGTH = 255;

/** Headers other tools write for the same fields (compared in the form `normalizeHeader` gives). */
const ALIASES: Record<string, CsvField> = {
  email_address: 'email',
  e_mail_address: 'email',
  e_mail: 'email',
  mail: 'email',
  firstname: 'first_name',
  first: 'first_name',
  given_name: 'first_name',
  fname: 'first_name',
  lastname: 'last_name',
  last: 'last_name',
  surname: 'last_name',
  family_name: 'last_name',
  lname: 'last_name',
  phone_number: 'phone',
  mobile: 'phone',
  telephone: 'phone',
  address: 'address1',
  address_1: 'address1',
  address_line_1: 'address1',
  street: 'address1',
  address_2: 'address2',
  address_line_2: 'address2',
  region: 'state',
  province: 'state',
  zip_code: 'zip',
  zipcode: 'zip',
  postal_code: 'zip',
  postcode: 'zip',
  birthday: 'birthdate',
  date_of_birth: 'birthdate',
  dob: 'birthdate',
  time_zone: 'timezone',
  tz: 'timezone',
  tag: 'tags',
  interest: 'interests',
};

/** `First Name`, `first-name` and `FIRST_NAME` all become `first_name`. */
export function normalizeHeader(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_')
    .replace(/[^a-z0-9_]/g, '');
}

/** The field a header names by itself, if any. */
export function fieldOfHeader(header: string): CsvField | undefined {
  const normalized = normalizeHeader(header);
  if ((CSV_FIELDS as readonly string[]).includes(normalized)) return normalized as CsvField;
  return ALIASES[normalized];
}

/**
 * The column a header maps to when nobody says otherwise: a subscriber field it names, a
 * custom field it names explicitly (`custom_fields.plan`), else a custom field under the
 * header's own name.
 */
export function guessTarget(header: string): ColumnTarget {
  if (header.startsWith(CUSTOM_PREFIX)) return header as ColumnTarget;
  const field = fieldOfHeader(header);
  if (field) return field;
  const key = header.trim();
  return key ? `${CUSTOM_PREFIX}${key}` : null;
}

/** Why a requested target is not one; undefined when it is. */
export function targetProblem(target: unknown): string | undefined {
  if (target === null || target === '') return undefined;
  if (typeof target !== 'string') return 'must be a field name, custom_fields.<key> or null';
  if ((CSV_FIELDS as readonly string[]).includes(target)) return undefined;
  if (target.startsWith(CUSTOM_PREFIX)) {
    const key = target.slice(CUSTOM_PREFIX.length);
    if (key.length > 0 && key.length <= MAX_KEY_LENGTH) return undefined;
    return `a custom field's name must be 1 to ${MAX_KEY_LENGTH} characters`;
  }
  return `${target} is not a subscriber field (use custom_fields.<key> for your own)`;
}

/**
 * The columns of a header: each header's requested target if `requested` names it (null or
 * '' skips it), else the guess. Returns the problems instead when two columns would fill the
 * same field or no column holds the email.
 */
export function mapColumns(
  headers: string[],
  requested: Record<string, unknown> = {},
): { columns: CsvColumn[]; problems: string[] } {
  const columns = headers.map((header) => {
    const wanted = Object.hasOwn(requested, header) ? requested[header] : undefined;
    const target =
      wanted === undefined ? guessTarget(header) : ((wanted || null) as ColumnTarget | null);
    return { header, target };
  });
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const { header, target } of columns) {
    if (target === null) continue;
    const other = seen.get(target);
    if (other !== undefined) {
      problems.push(`Columns "${other}" and "${header}" both map to ${target}.`);
    }
    seen.set(target, header);
  }
  if (!seen.has('email')) problems.push('No column holds the email address.');
  return { columns, problems };
}

// ---- cells to values --------------------------------------------------------------------

/** A list cell: a JSON array, or items separated by commas. */
function parseList(cell: string): unknown {
  if (cell.trimStart().startsWith('[')) return parseJsonOr(cell);
  return cell
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function parseJsonOr(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    // Left as text: the field's validation says what is wrong with it.
    return cell;
  }
}

/**
 * A custom field's cell: JSON where it is unambiguous JSON (`true`, `null`, `{…}`, `[…]`,
 * `"…"`, or a number written the way JSON writes it: `42`, not `042` or `1e3`), else the text.
 */
export function parseCustomCell(cell: string): unknown {
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  if (cell === 'null') return null;
  const first = cell[0];
  if (first === '{' || first === '[' || first === '"') {
    try {
      return JSON.parse(cell);
    } catch {
      return cell;
    }
  }
  if (/^-?\d/.test(cell)) {
    const number = Number(cell);
    if (Number.isFinite(number) && String(number) === cell) return number;
  }
  return cell;
}

/**
 * One CSV record as the body of a subscriber write: the mapped cells, blank ones left out
 * (a blank cell changes nothing), lists and JSON cells decoded, custom columns gathered into
 * `custom_fields`. Validation happens on the result, with the API's own rules.
 */
export function recordToBody(record: string[], columns: CsvColumn[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  let custom: Record<string, unknown> | undefined;
  for (let index = 0; index < columns.length; index++) {
    const { target } = columns[index];
    // An export wrote formula-like cells with a leading quote (formula-cells.ts).
    const cell = record[index] === undefined ? undefined : restoreCell(record[index]);
    if (target === null || cell === undefined || cell.trim() === '') continue;
    if (target.startsWith(CUSTOM_PREFIX)) {
      custom ??= {};
      custom[target.slice(CUSTOM_PREFIX.length)] = parseCustomCell(cell);
    } else if (KIND_OF.get(target) === 'list') {
      body[target] = parseList(cell);
    } else if (KIND_OF.get(target) === 'social') {
      body[target] = parseJsonOr(cell);
    } else {
      body[target] = cell;
    }
  }
  if (custom) body.custom_fields = custom;
  return body;
}

// ---- values to cells (exports) ----------------------------------------------------------

/** The header of a custom field's column: its key, unless an import would read that as a field. */
export function customHeader(key: string): string {
  const ambiguous =
    key.startsWith(CUSTOM_PREFIX) || fieldOfHeader(key) !== undefined || key.trim() !== key;
  return ambiguous || key === '' ? `${CUSTOM_PREFIX}${key}` : key;
}

/** A list as comma-separated items when that reads back the same, else as JSON. */
function formatList(items: string[]): string {
  if (items.length === 0) return '';
  const plain = items.every(
    (item) => item !== '' && item.trim() === item && !item.includes(',') && !item.startsWith('['),
  );
  return plain ? items.join(', ') : JSON.stringify(items);
}

/** A custom value as a cell that parseCustomCell turns back into the same value. */
export function formatCustomCell(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    return value.trim() !== '' && parseCustomCell(value) === value ? value : JSON.stringify(value);
  }
  return JSON.stringify(value);
}

/** A profile field's cell, in the form recordToBody reads back. */
function profileCell(field: ProfileField, row: Subscriber): string {
  const value = row[field.prop];
  switch (field.kind) {
    case 'text':
      return (value as string | null) ?? '';
    case 'date':
      return value ? new Date(value as Date).toISOString() : '';
    case 'list':
      return formatList(value as string[]);
    default:
      return Array.isArray(value) && value.length > 0 ? JSON.stringify(value) : '';
  }
}

/** The cells of one subscriber for an export's header (fields, then these custom keys). */
export function subscriberCells(row: Subscriber, customKeys: string[]): string[] {
  const cells = [
    row.id,
    row.email,
    ...CSV_PROFILE_FIELDS.map((field) => profileCell(field, row)),
    new Date(row.createdAt).toISOString(),
    new Date(row.updatedAt).toISOString(),
  ];
  const custom = (row.customFields ?? {}) as Record<string, unknown>;
  for (const key of customKeys) cells.push(formatCustomCell(custom[key]));
  return cells;
}

/** An export's header: the fields, then one column per custom key. */
export function exportHeader(customKeys: string[]): string[] {
  return [...CSV_FIELDS, ...customKeys.map(customHeader)];
}
