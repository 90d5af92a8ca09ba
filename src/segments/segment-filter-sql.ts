import { Prisma } from '../generated/prisma/client';
import type { Condition, FieldTarget, Scalar, SegmentFilter } from './segment-filter';
import type { ColumnField } from './segment-fields';

/**
 * A parenthesised boolean SQL expression over the columns of `subscribers` qualified with the
 * alias `s` (e.g. `(s.country_code = $1)`); `TRUE` for the empty filter.
 *
 * Every value a client wrote becomes a bind parameter; the only SQL text a filter can choose
 * is a column constant from SUBSCRIBER_FIELDS. Negations (neq, not_in, not_contains) match
 * subscribers who have no value at all, as a person reading "country is not GB" expects.
 */
export function segmentFilterSql(filter: SegmentFilter): Prisma.Sql {
  switch (filter.kind) {
    case 'everyone':
      return Prisma.sql`TRUE`;
    case 'and':
    case 'or': {
      const separator = filter.kind === 'and' ? ' AND ' : ' OR ';
      return Prisma.sql`(${Prisma.join(filter.filters.map(segmentFilterSql), separator)})`;
    }
    case 'condition':
      return conditionSql(filter);
  }
}

function conditionSql(condition: Condition): Prisma.Sql {
  const { target } = condition;
  switch (target.type) {
    case 'text':
      return textSql(target, condition);
    case 'list':
      return listSql(target.column, condition);
    case 'date':
      return dateSql(target.column, condition);
    case 'custom':
      return customSql(target.key, condition);
  }
}

function textSql(field: ColumnField, condition: Condition): Prisma.Sql {
  const c = field.column;
  const text = (value: Scalar) =>
    field.normalize ? field.normalize(String(value)) : String(value);
  switch (condition.op) {
    case 'eq':
      return Prisma.sql`(${c} = ${text(condition.value)})`;
    case 'neq':
      return Prisma.sql`(${c} IS DISTINCT FROM ${text(condition.value)})`;
    case 'in':
      return Prisma.sql`(${c} = ANY(${condition.value.map(text)}::text[]))`;
    case 'not_in':
      return Prisma.sql`(${c} IS NULL OR ${c} <> ALL(${condition.value.map(text)}::text[]))`;
    // A blank string is as good as no value for a name or a city.
    case 'exists':
      return Prisma.sql`(COALESCE(${c}, '') <> '')`;
    case 'not_exists':
      return Prisma.sql`(COALESCE(${c}, '') = '')`;
    default:
      return unsupported(field, condition);
  }
}

/** tags and interests: text arrays, never NULL (they default to `{}`). */
function listSql(c: Prisma.Sql, condition: Condition): Prisma.Sql {
  switch (condition.op) {
    case 'contains':
      return Prisma.sql`(${String(condition.value)}::text = ANY(${c}))`;
    case 'not_contains':
      return Prisma.sql`(NOT (${String(condition.value)}::text = ANY(${c})))`;
    case 'in':
      return Prisma.sql`(${c} && ${condition.value.map(String)}::text[])`;
    case 'not_in':
      return Prisma.sql`(NOT (${c} && ${condition.value.map(String)}::text[]))`;
    case 'exists':
      return Prisma.sql`(cardinality(${c}) > 0)`;
    case 'not_exists':
      return Prisma.sql`(cardinality(${c}) = 0)`;
    default:
      return unsupported({ type: 'list' }, condition);
  }
}

function dateSql(c: Prisma.Sql, condition: Condition): Prisma.Sql {
  switch (condition.op) {
    case 'before':
      return Prisma.sql`(${c} < ${condition.value.toISOString()}::timestamptz)`;
    case 'after':
      return Prisma.sql`(${c} > ${condition.value.toISOString()}::timestamptz)`;
    case 'exists':
      return Prisma.sql`(${c} IS NOT NULL)`;
    case 'not_exists':
      return Prisma.sql`(${c} IS NULL)`;
    default:
      return unsupported({ type: 'date' }, condition);
  }
}

/** One top-level key of custom_fields, compared as JSON: 5 and "5" are different values. */
function customSql(key: string, condition: Condition): Prisma.Sql {
  // `::text` picks the key (not the array index) variant of `->`.
  const v = Prisma.sql`(s.custom_fields -> ${key}::text)`;
  const json = (value: Scalar) => JSON.stringify(value);
  switch (condition.op) {
    case 'eq':
      return Prisma.sql`(${v} = ${json(condition.value)}::jsonb)`;
    case 'neq':
      return Prisma.sql`(${v} IS DISTINCT FROM ${json(condition.value)}::jsonb)`;
    case 'in':
      return Prisma.sql`(${v} = ANY(${condition.value.map(json)}::jsonb[]))`;
    case 'not_in':
      return Prisma.sql`(${v} IS NULL OR ${v} <> ALL(${condition.value.map(json)}::jsonb[]))`;
    // A key holding JSON null counts as absent, like a NULL column.
    case 'exists':
      return Prisma.sql`(jsonb_typeof(${v}) <> 'null')`;
    case 'not_exists':
      return Prisma.sql`(COALESCE(jsonb_typeof(${v}), 'null') = 'null')`;
    default:
      return unsupported({ type: 'custom' }, condition);
  }
}

/** The parser never lets these through; failing loudly beats compiling a wrong audience. */
function unsupported(target: Pick<FieldTarget, 'type'>, condition: Condition): never {
  throw new Error(`segment filter: op ${condition.op} is not valid for a ${target.type} field`);
}
