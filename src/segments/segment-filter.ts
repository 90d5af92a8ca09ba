import { ErrorDetail, ValidationFailedError } from '../platform/errors/api-errors';
import { isDayWithin, parseIsoDate } from '../platform/validation/calendar-date';
import {
  ColumnField,
  CUSTOM_FIELD_PREFIX,
  FieldType,
  MAX_CUSTOM_KEY_LENGTH,
  Operator,
  OPERATORS,
  OPERATORS_BY_TYPE,
  SUBSCRIBER_FIELDS,
} from './segment-fields';

/** The dates a rule may compare with. */
const FIRST_DAY = '1900-01-01';
const LAST_DAY = '2200-12-31';

/**
 * A segment's rule, parsed. The JSON a client writes:
 * - `{}`: every subscriber;
 * - `{"field": "country_code", "op": "eq", "value": "GB"}`: one condition;
 * - `{"and": [...]}` / `{"or": [...]}`: groups, nested at most MAX_GROUP_DEPTH deep.
 */
export type SegmentFilter = Everyone | Group | Condition;

export interface Everyone {
  readonly kind: 'everyone';
}

export interface Group {
  readonly kind: 'and' | 'or';
  readonly filters: readonly SegmentFilter[];
}

/** What a condition compares: a whitelisted column, or one key of custom_fields. */
export type FieldTarget = ColumnField | { readonly type: 'custom'; readonly key: string };

/** A JSON scalar: what a custom field is compared with. Column fields take strings only. */
export type Scalar = string | number | boolean;

export type Condition = { readonly kind: 'condition'; readonly target: FieldTarget } & (
  | { readonly op: 'exists' | 'not_exists' }
  | { readonly op: 'eq' | 'neq' | 'contains' | 'not_contains'; readonly value: Scalar }
  | { readonly op: 'in' | 'not_in'; readonly value: readonly Scalar[] }
  | { readonly op: 'before' | 'after'; readonly value: Date }
);

export const MAX_GROUP_DEPTH = 5;
export const MAX_CONDITIONS = 100;
export const MAX_LIST_VALUES = 1000;
export const MAX_STRING_LENGTH = 1000;

/** Validates untrusted JSON; throws ValidationFailedError with paths under `filter`. */
export function parseSegmentFilter(filter: unknown): SegmentFilter {
  const parser = new FilterParser();
  const parsed = parser.node(filter, 'filter', 0);
  if (parser.conditions > MAX_CONDITIONS) {
    parser.fail(
      'filter',
      'too_many_conditions',
      `A filter holds at most ${MAX_CONDITIONS} conditions.`,
    );
  }
  if (parser.errors.length > 0 || !parsed) throw new ValidationFailedError(parser.errors);
  return parsed;
}

type Json = Record<string, unknown>;

/** Walks the whole filter and reports every problem at once, each at its path. */
class FilterParser {
  readonly errors: ErrorDetail[] = [];
  conditions = 0;

  fail(field: string, code: string, message: string): undefined {
    this.errors.push({ field, code, message });
    return undefined;
  }

  node(raw: unknown, path: string, depth: number): SegmentFilter | undefined {
    if (!isObject(raw)) return this.fail(path, 'invalid_type', `${path} must be an object.`);
    const keys = Object.keys(raw);
    if (keys.length === 0) return { kind: 'everyone' };
    if (Object.hasOwn(raw, 'and') || Object.hasOwn(raw, 'or'))
      return this.group(raw, path, depth + 1);
    return this.condition(raw, path);
  }

  private group(raw: Json, path: string, depth: number): Group | undefined {
    this.rejectKeys(raw, path, ['and', 'or']);
    if (Object.hasOwn(raw, 'and') && Object.hasOwn(raw, 'or')) {
      return this.fail(path, 'invalid_value', `${path} must hold either "and" or "or", not both.`);
    }
    const kind = Object.hasOwn(raw, 'and') ? 'and' : 'or';
    const listPath = `${path}.${kind}`;
    if (depth > MAX_GROUP_DEPTH) {
      return this.fail(listPath, 'too_deep', `Groups nest at most ${MAX_GROUP_DEPTH} deep.`);
    }
    const items = raw[kind];
    if (!Array.isArray(items))
      return this.fail(listPath, 'invalid_type', `${listPath} must be an array.`);
    if (items.length === 0) {
      return this.fail(listPath, 'invalid_value', `${listPath} must hold at least one filter.`);
    }
    const filters = items.map((item, index) => this.node(item, `${listPath}[${index}]`, depth));
    return filters.every(Boolean) ? { kind, filters: filters as SegmentFilter[] } : undefined;
  }

  private condition(raw: Json, path: string): Condition | undefined {
    this.conditions += 1;
    this.rejectKeys(raw, path, ['field', 'op', 'value']);
    const target = this.target(raw.field, `${path}.field`);
    const op = this.operator(raw.op, `${path}.op`, target?.type);
    if (!target || !op) return undefined;
    const valuePath = `${path}.value`;
    if (op === 'exists' || op === 'not_exists') {
      if (Object.hasOwn(raw, 'value'))
        return this.fail(valuePath, 'invalid_value', `${op} takes no value.`);
      return { kind: 'condition', target, op };
    }
    if (!Object.hasOwn(raw, 'value'))
      return this.fail(valuePath, 'required', `${op} needs a value.`);
    if (op === 'before' || op === 'after') {
      const value = this.date(raw.value, valuePath);
      return value && { kind: 'condition', target, op, value };
    }
    if (op === 'in' || op === 'not_in') {
      const value = this.list(raw.value, valuePath, target.type);
      return value && { kind: 'condition', target, op, value };
    }
    const value = this.scalar(raw.value, valuePath, target.type);
    return value === undefined ? undefined : { kind: 'condition', target, op, value };
  }

  private target(raw: unknown, path: string): FieldTarget | undefined {
    if (raw === undefined) return this.fail(path, 'required', 'A condition needs a field.');
    if (typeof raw !== 'string')
      return this.fail(path, 'invalid_type', `${path} must be a string.`);
    const known = SUBSCRIBER_FIELDS.get(raw);
    if (known) return known;
    const key = raw.startsWith(CUSTOM_FIELD_PREFIX) ? raw.slice(CUSTOM_FIELD_PREFIX.length) : '';
    if (key.length > 0 && key.length <= MAX_CUSTOM_KEY_LENGTH) return { type: 'custom', key };
    const fields = [...SUBSCRIBER_FIELDS.keys(), `${CUSTOM_FIELD_PREFIX}<key>`].join(', ');
    return this.fail(path, 'unknown_field', `Unknown field ${quote(raw)}. Fields: ${fields}.`);
  }

  private operator(raw: unknown, path: string, type: FieldType | undefined): Operator | undefined {
    if (raw === undefined) return this.fail(path, 'required', 'A condition needs an op.');
    if (typeof raw !== 'string')
      return this.fail(path, 'invalid_type', `${path} must be a string.`);
    if (!(OPERATORS as readonly string[]).includes(raw)) {
      const ops = OPERATORS.join(', ');
      return this.fail(path, 'unknown_operator', `Unknown op ${quote(raw)}. Ops: ${ops}.`);
    }
    const op = raw as Operator;
    if (type && !OPERATORS_BY_TYPE[type].includes(op)) {
      const ops = OPERATORS_BY_TYPE[type].join(', ');
      return this.fail(
        path,
        'unsupported_operator',
        `${op} does not apply to this field. Ops: ${ops}.`,
      );
    }
    return op;
  }

  /** Column fields hold text; a custom field may hold any JSON scalar. */
  private scalar(raw: unknown, path: string, type: FieldType): Scalar | undefined {
    if (typeof raw === 'string') {
      if (raw.length <= MAX_STRING_LENGTH) return raw;
      return this.fail(path, 'too_long', `${path} is longer than ${MAX_STRING_LENGTH} characters.`);
    }
    const jsonScalar =
      typeof raw === 'boolean' || (typeof raw === 'number' && Number.isFinite(raw));
    if (type === 'custom' && jsonScalar) return raw;
    const expected = type === 'custom' ? 'a string, number or boolean' : 'a string';
    return this.fail(path, 'invalid_value', `${path} must be ${expected}.`);
  }

  private list(raw: unknown, path: string, type: FieldType): Scalar[] | undefined {
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_LIST_VALUES) {
      return this.fail(
        path,
        'invalid_value',
        `${path} must be an array of 1 to ${MAX_LIST_VALUES} values.`,
      );
    }
    const values = raw.map((item, index) => this.scalar(item, `${path}[${index}]`, type));
    return values.every((value) => value !== undefined) ? values : undefined;
  }

  /**
   * A date (`2024-05-01`, midnight UTC) or a date-time with its offset: never local time.
   * Years outside 1900–2200 are refused: no subscriber date is there, and far dates (year 0)
   * break the date arithmetic of the queries built from a filter.
   */
  private date(raw: unknown, path: string): Date | undefined {
    const parsed = typeof raw === 'string' ? parseIsoDate(raw) : undefined;
    if (parsed && isDayWithin(parsed, FIRST_DAY, LAST_DAY)) return parsed.instant;
    return this.fail(
      path,
      'invalid_value',
      parsed
        ? `${path} must be between ${FIRST_DAY} and ${LAST_DAY}.`
        : `${path} must be an ISO 8601 date or date-time with offset.`,
    );
  }

  private rejectKeys(raw: Json, path: string, allowed: string[]): void {
    for (const key of Object.keys(raw)) {
      if (!allowed.includes(key))
        this.fail(`${path}.${key}`, 'unknown_field', `${quote(key)} is not allowed here.`);
    }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Echoes client input in messages, shortened so a huge value cannot bloat the error. */
function quote(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}
