import { fieldLabel } from '../api/messages';

/**
 * The rule builder's model and its translation to and from the segments module's JSON filter
 * language. The builder covers one level (match all / any of a list of conditions); any
 * other filter is edited as JSON.
 */
export interface Rule {
  key: number;
  field: string;
  op: string;
  value: string;
}

export interface Rules {
  match: 'and' | 'or';
  rules: Rule[];
}

export const OPERATOR_LABELS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  in: 'is one of',
  not_in: 'is none of',
  contains: 'contains',
  not_contains: 'does not contain',
  exists: 'is set',
  not_exists: 'is not set',
  before: 'is before',
  after: 'is after',
};

const NO_VALUE = new Set(['exists', 'not_exists']);
const LIST_VALUE = new Set(['in', 'not_in']);
const DATE_VALUE = new Set(['before', 'after']);

export const needsValue = (op: string) => !NO_VALUE.has(op);
export const takesList = (op: string) => LIST_VALUE.has(op);
export const takesDate = (op: string) => DATE_VALUE.has(op);

let nextKey = 1;
export function newRule(field = 'email', op = 'eq', value = ''): Rule {
  return { key: nextKey++, field, op, value };
}

type Json = Record<string, unknown>;

export function toFilter({ match, rules }: Rules): Json {
  const conditions = rules.map(toCondition);
  if (conditions.length === 0) return {};
  if (conditions.length === 1) return conditions[0];
  return { [match]: conditions };
}

function toCondition(rule: Rule): Json {
  if (!needsValue(rule.op)) return { field: rule.field, op: rule.op };
  if (takesList(rule.op)) {
    const values = rule.value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    return { field: rule.field, op: rule.op, value: values };
  }
  if (takesDate(rule.op)) {
    const date = rule.value ? new Date(`${rule.value}T00:00:00Z`) : undefined;
    return { field: rule.field, op: rule.op, value: date ? date.toISOString() : '' };
  }
  return { field: rule.field, op: rule.op, value: rule.value };
}

/** The builder's view of a stored filter, or undefined when only JSON can show it. */
export function fromFilter(filter: unknown): Rules | undefined {
  if (!isObject(filter)) return undefined;
  const keys = Object.keys(filter);
  if (keys.length === 0) return { match: 'and', rules: [] };
  if ('field' in filter) {
    const rule = fromCondition(filter);
    return rule && { match: 'and', rules: [rule] };
  }
  if (keys.length !== 1 || !(keys[0] === 'and' || keys[0] === 'or')) return undefined;
  const items = filter[keys[0]];
  if (!Array.isArray(items)) return undefined;
  const rules = items.map((item) => (isObject(item) ? fromCondition(item) : undefined));
  if (rules.some((rule) => rule === undefined)) return undefined;
  return { match: keys[0], rules: rules as Rule[] };
}

function fromCondition(condition: Json): Rule | undefined {
  const { field, op, value } = condition;
  if (typeof field !== 'string' || typeof op !== 'string') return undefined;
  if (!needsValue(op)) return newRule(field, op);
  if (Array.isArray(value)) return newRule(field, op, value.map(String).join(', '));
  if (takesDate(op) && typeof value === 'string') return newRule(field, op, value.slice(0, 10));
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return newRule(field, op, String(value));
  }
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A filter in words, e.g. `tags contains “vip” and city is “London”`; JSON when nested. */
export function describeFilter(filter: unknown): string {
  const rules = fromFilter(filter);
  if (!rules) return JSON.stringify(filter);
  if (rules.rules.length === 0) return 'Every subscriber';
  return rules.rules
    .map((rule) => {
      const label = OPERATOR_LABELS[rule.op] ?? rule.op;
      return needsValue(rule.op)
        ? `${rule.field} ${label} “${rule.value}”`
        : `${rule.field} ${label}`;
    })
    .join(rules.match === 'and' ? ' and ' : ' or ');
}

const RULE_PARTS: Record<string, string> = { field: 'field', op: 'condition', value: 'value' };

/**
 * Where in the filter a problem is, in the editor's words: in the rule builder,
 * `filter.and[1].value` is "Rule 2, value" (one rule alone is the filter itself); in JSON,
 * the path within the filter.
 */
export function filterLabel(path: string, builder: boolean): string {
  const rule = /^filter(?:\.(?:and|or)\[(\d+)\])?(?:\.(field|op|value)(?:\[\d+\])?)?$/.exec(path);
  if (builder && rule && (rule[1] || rule[2])) {
    const part = rule[2] ? `, ${RULE_PARTS[rule[2]]}` : '';
    return `Rule ${rule[1] ? Number(rule[1]) + 1 : 1}${part}`;
  }
  if (path === 'filter') return 'Filter';
  if (path.startsWith('filter.')) return `Filter, at ${path.slice('filter.'.length)}`;
  return fieldLabel(path);
}
