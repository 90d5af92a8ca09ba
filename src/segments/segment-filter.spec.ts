import { ValidationFailedError } from '../platform/errors/api-errors';
import { parseSegmentFilter } from './segment-filter';
import { segmentFilterSql } from './segment-filter-sql';

/** The SQL text and bind values of a filter written as JSON. */
function compile(filter: unknown): { text: string; values: unknown[] } {
  const sql = segmentFilterSql(parseSegmentFilter(filter));
  return { text: sql.text, values: sql.values };
}

function detailsOf(filter: unknown) {
  try {
    parseSegmentFilter(filter);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailedError);
    return (error as ValidationFailedError).details;
  }
  throw new Error('expected the filter to be rejected');
}

const cond = (field: string, op: string, value?: unknown) =>
  value === undefined ? { field, op } : { field, op, value };

describe('segment filter → SQL', () => {
  it('matches everyone with the empty filter', () => {
    expect(compile({})).toEqual({ text: 'TRUE', values: [] });
  });

  describe('text fields', () => {
    it.each([
      ['eq', 'GB', '(s.country_code = $1)', ['GB']],
      ['neq', 'GB', '(s.country_code IS DISTINCT FROM $1)', ['GB']],
      ['in', ['GB', 'IE'], '(s.country_code = ANY($1::text[]))', [['GB', 'IE']]],
      ['not_in', ['GB'], '(s.country_code IS NULL OR s.country_code <> ALL($1::text[]))', [['GB']]],
      ['exists', undefined, "(COALESCE(s.country_code, '') <> '')", []],
      ['not_exists', undefined, "(COALESCE(s.country_code, '') = '')", []],
    ])('%s', (op, value, text, values) => {
      expect(compile(cond('country_code', op, value))).toEqual({ text, values });
    });

    it('compares emails normalised, against the normalised column', () => {
      expect(compile(cond('email', 'in', [' Ada@Example.COM', 'b@x.io']))).toEqual({
        text: '(s.email_normalized = ANY($1::text[]))',
        values: [['ada@example.com', 'b@x.io']],
      });
    });
  });

  describe('tags and interests', () => {
    it.each([
      ['contains', 'vip', '($1::text = ANY(s.tags))', ['vip']],
      ['not_contains', 'vip', '(NOT ($1::text = ANY(s.tags)))', ['vip']],
      ['in', ['a', 'b'], '(s.tags && $1::text[])', [['a', 'b']]],
      ['not_in', ['a'], '(NOT (s.tags && $1::text[]))', [['a']]],
      ['exists', undefined, '(cardinality(s.tags) > 0)', []],
      ['not_exists', undefined, '(cardinality(s.tags) = 0)', []],
    ])('%s', (op, value, text, values) => {
      expect(compile(cond('tags', op, value))).toEqual({ text, values });
    });

    it('uses the interests column for interests', () => {
      expect(compile(cond('interests', 'contains', 'jazz')).text).toBe(
        '($1::text = ANY(s.interests))',
      );
    });
  });

  describe('dates', () => {
    it.each([
      ['before', '2024-05-01', '(s.created_at < $1::timestamptz)', ['2024-05-01T00:00:00.000Z']],
      [
        'after',
        '2024-05-01T12:30:00+02:00',
        '(s.created_at > $1::timestamptz)',
        ['2024-05-01T10:30:00.000Z'],
      ],
      ['exists', undefined, '(s.created_at IS NOT NULL)', []],
      ['not_exists', undefined, '(s.created_at IS NULL)', []],
    ])('%s', (op, value, text, values) => {
      expect(compile(cond('created_at', op, value))).toEqual({ text, values });
    });

    it.each(['birthdate', 'updated_at', 'last_sent_at', 'last_open_at', 'last_click_at'])(
      'filters on %s',
      (field) => {
        expect(compile(cond(field, 'before', '2020-01-01')).text).toBe(
          `(s.${field} < $1::timestamptz)`,
        );
      },
    );
  });

  describe('custom fields', () => {
    const v = '(s.custom_fields -> $1::text)';
    it.each([
      ['eq', 'pro', `(${v} = $2::jsonb)`, ['plan', '"pro"']],
      ['eq', 5, `(${v} = $2::jsonb)`, ['plan', '5']],
      ['neq', true, `(${v} IS DISTINCT FROM $2::jsonb)`, ['plan', 'true']],
      ['in', ['pro', 2], `(${v} = ANY($2::jsonb[]))`, ['plan', ['"pro"', '2']]],
      [
        'not_in',
        ['pro'],
        `(${v} IS NULL OR (s.custom_fields -> $2::text) <> ALL($3::jsonb[]))`,
        ['plan', 'plan', ['"pro"']],
      ],
      ['exists', undefined, `(jsonb_typeof(${v}) <> 'null')`, ['plan']],
      ['not_exists', undefined, `(COALESCE(jsonb_typeof(${v}), 'null') = 'null')`, ['plan']],
    ])('%s %p', (op, value, text, values) => {
      expect(compile(cond('custom_fields.plan', op, value))).toEqual({ text, values });
    });

    it('keeps the key, whatever it holds, a bind value', () => {
      const key = "x') OR 1=1; DROP TABLE subscribers; --";
      expect(compile(cond(`custom_fields.${key}`, 'exists'))).toEqual({
        text: "(jsonb_typeof((s.custom_fields -> $1::text)) <> 'null')",
        values: [key],
      });
    });
  });

  describe('groups', () => {
    it('joins and/or with parentheses, nesting allowed', () => {
      const filter = {
        and: [
          cond('tags', 'contains', 'vip'),
          { or: [cond('country_code', 'eq', 'GB'), cond('country_code', 'eq', 'IE')] },
        ],
      };
      expect(compile(filter)).toEqual({
        text: '(($1::text = ANY(s.tags)) AND ((s.country_code = $2) OR (s.country_code = $3)))',
        values: ['vip', 'GB', 'IE'],
      });
    });

    it('accepts groups nested five deep', () => {
      let filter: unknown = cond('status', 'eq', 'subscribed');
      for (let i = 0; i < 5; i++) filter = { and: [filter] };
      expect(compile(filter).text).toBe('((((((s.status = $1))))))');
    });
  });

  describe('injection attempts', () => {
    it('never puts a value into the SQL text', () => {
      const evil = "GB'); DELETE FROM subscribers; --";
      const { text, values } = compile({
        or: [
          cond('country_code', 'eq', evil),
          cond('tags', 'in', [evil, 'a"b']),
          cond('created_at', 'exists'),
        ],
      });
      expect(text).not.toContain('DELETE');
      expect(text).not.toContain("'GB");
      expect(values).toEqual([evil, [evil, 'a"b']]);
    });

    it('rejects a field name that is not on the whitelist', () => {
      expect(detailsOf(cond('email; drop table subscribers', 'eq', 'x'))).toEqual([
        expect.objectContaining({ field: 'filter.field', code: 'unknown_field' }),
      ]);
    });

    it.each(['__proto__', 'constructor', 'toString', 'email_normalized', 's.email', 'account_id'])(
      'rejects %s as a field',
      (field) => {
        expect(detailsOf(cond(field, 'eq', 'x'))).toEqual([
          expect.objectContaining({ field: 'filter.field', code: 'unknown_field' }),
        ]);
      },
    );
  });
});

describe('parseSegmentFilter errors', () => {
  it('names the path inside the filter', () => {
    const filter = { and: [cond('tags', 'contains', 'a'), cond('tags', 'like', 'a')] };
    expect(detailsOf(filter)).toEqual([
      { field: 'filter.and[1].op', code: 'unknown_operator', message: expect.any(String) },
    ]);
  });

  it('reports every problem at once', () => {
    const filter = {
      or: [cond('nope', 'eq', 'x'), { and: [cond('country_code', 'eq', 5)] }, 'x'],
    };
    expect(detailsOf(filter).map((d) => [d.field, d.code])).toEqual([
      ['filter.or[0].field', 'unknown_field'],
      ['filter.or[1].and[0].value', 'invalid_value'],
      ['filter.or[2]', 'invalid_type'],
    ]);
  });

  it.each([
    ['not an object', 'GB', 'filter', 'invalid_type'],
    ['an array', [], 'filter', 'invalid_type'],
    ['null', null, 'filter', 'invalid_type'],
    ['a missing field', { op: 'eq', value: 'x' }, 'filter.field', 'required'],
    ['a missing op', { field: 'city' }, 'filter.op', 'required'],
    ['a field that is not a string', cond(5 as never, 'eq', 'x'), 'filter.field', 'invalid_type'],
    ['an empty custom key', cond('custom_fields.', 'eq', 'x'), 'filter.field', 'unknown_field'],
    ['an op for another type', cond('tags', 'eq', 'x'), 'filter.op', 'unsupported_operator'],
    ['contains on text', cond('city', 'contains', 'x'), 'filter.op', 'unsupported_operator'],
    ['before on text', cond('city', 'before', '2024-01-01'), 'filter.op', 'unsupported_operator'],
    ['eq on a date', cond('created_at', 'eq', '2024-01-01'), 'filter.op', 'unsupported_operator'],
    ['a missing value', { field: 'city', op: 'eq' }, 'filter.value', 'required'],
    ['a value on exists', cond('city', 'exists', true), 'filter.value', 'invalid_value'],
    ['a number for text', cond('city', 'eq', 5), 'filter.value', 'invalid_value'],
    ['an object for custom', cond('custom_fields.a', 'eq', {}), 'filter.value', 'invalid_value'],
    ['null for custom', cond('custom_fields.a', 'eq', null), 'filter.value', 'invalid_value'],
    ['a non-array for in', cond('city', 'in', 'x'), 'filter.value', 'invalid_value'],
    ['an empty in', cond('city', 'in', []), 'filter.value', 'invalid_value'],
    ['a bad in item', cond('city', 'in', ['a', 1]), 'filter.value[1]', 'invalid_value'],
    ['a long string', cond('city', 'eq', 'x'.repeat(1001)), 'filter.value', 'too_long'],
    ['a non-date', cond('created_at', 'after', 'yesterday'), 'filter.value', 'invalid_value'],
    [
      'an impossible date',
      cond('birthdate', 'after', '2024-02-31'),
      'filter.value',
      'invalid_value',
    ],
    [
      'a date-time without offset',
      cond('created_at', 'after', '2024-01-01T10:00'),
      'filter.value',
      'invalid_value',
    ],
    ['year 0000', cond('created_at', 'after', '0000-01-01'), 'filter.value', 'invalid_value'],
    [
      'a date before 1900',
      cond('birthdate', 'after', '1899-12-31'),
      'filter.value',
      'invalid_value',
    ],
    [
      'a date after 2200',
      cond('created_at', 'before', '2201-01-01'),
      'filter.value',
      'invalid_value',
    ],
    ['a basic ISO date', cond('created_at', 'before', '20240101'), 'filter.value', 'invalid_value'],
    ['an extra key', { ...cond('city', 'eq', 'x'), extra: 1 }, 'filter.extra', 'unknown_field'],
    ['both and and or', { and: [{}], or: [{}] }, 'filter', 'invalid_value'],
    ['an extra key in a group', { and: [{}], not: [] }, 'filter.not', 'unknown_field'],
    ['an empty group', { or: [] }, 'filter.or', 'invalid_value'],
    ['a group that is not a list', { and: {} }, 'filter.and', 'invalid_type'],
  ])('rejects %s', (_, filter, field, code) => {
    expect(detailsOf(filter)).toEqual([expect.objectContaining({ field, code })]);
  });

  it('limits nesting depth', () => {
    let filter: unknown = cond('status', 'eq', 'x');
    for (let i = 0; i < 6; i++) filter = { or: [filter] };
    expect(detailsOf(filter)).toEqual([
      expect.objectContaining({
        field: 'filter.or[0].or[0].or[0].or[0].or[0].or',
        code: 'too_deep',
      }),
    ]);
  });

  it('limits the number of conditions', () => {
    const conditions = Array.from({ length: 101 }, () => cond('status', 'eq', 'x'));
    expect(detailsOf({ and: conditions })).toEqual([
      expect.objectContaining({ field: 'filter', code: 'too_many_conditions' }),
    ]);
    expect(() => parseSegmentFilter({ and: conditions.slice(1) })).not.toThrow();
  });
});
