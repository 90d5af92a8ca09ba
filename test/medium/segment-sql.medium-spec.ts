import { Prisma } from '../../src/generated/prisma/client';
import { parseSegmentFilter } from '../../src/segments/segment-filter';
import { segmentFilterSql } from '../../src/segments/segment-filter-sql';
import { SegmentsService } from '../../src/segments/segments.service';
import { Tenant } from '../support/factories';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * A segment filter compiled to SQL and run on PostgreSQL: for each filter, exactly which
 * subscribers it matches (not only how many), through the same compiled condition the
 * campaign fan-out puts in its audience query. The count the segments service reports must be
 * the number of those rows. A failure names the filter and the rows that differ.
 */
describe('segment filters compiled to SQL', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let tenant: Tenant;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    tenant = await ctx.make.tenant('Segmented');
    const people: Parameters<typeof ctx.make.subscriber>[1][] = [
      { email: 'a@example.com', countryCode: 'GB', tags: ['vip', 'beta'], city: 'Leeds' },
      {
        email: 'b@example.com',
        countryCode: 'GB',
        tags: ['vip'],
        customFields: { plan: 'pro', seats: 5 },
        city: '',
      },
      { email: 'c@example.com', countryCode: 'GB', tags: ['vip'], customFields: { plan: 5 } },
      {
        email: 'd@example.com',
        countryCode: 'FR',
        tags: ['vip'],
        firstName: "O'Brien",
        interests: ['jazz'],
        customFields: { plan: null, trial: true },
      },
      {
        email: 'e@example.com',
        tags: [],
        status: 'unsubscribed',
        birthdate: new Date('1990-06-01T00:00:00Z'),
      },
    ];
    for (const person of people) await ctx.make.subscriber(tenant.accountId, person);
    // Another account's subscriber who matches almost everything: never in this account's rows.
    const other = await ctx.make.account('Other');
    await ctx.make.subscriber(other, {
      email: 'x@example.com',
      countryCode: 'GB',
      tags: ['vip', 'beta'],
      customFields: { plan: 'pro' },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** The emails a filter matches in the tenant's account, sorted. */
  async function matched(filter: unknown): Promise<string[]> {
    const condition = segmentFilterSql(parseSegmentFilter(filter));
    const rows = await ctx.prisma.$queryRaw<{ email: string }[]>(Prisma.sql`
      SELECT s.email FROM subscribers s
       WHERE s.account_id = ${tenant.accountId}::uuid AND ${condition}
       ORDER BY s.email`);
    return rows.map((row) => row.email.split('@')[0]);
  }

  it.each<[string, unknown, string[]]>([
    ['the empty filter: everyone', {}, ['a', 'b', 'c', 'd', 'e']],
    ['eq', { field: 'country_code', op: 'eq', value: 'GB' }, ['a', 'b', 'c']],
    ['neq also matches no value', { field: 'country_code', op: 'neq', value: 'GB' }, ['d', 'e']],
    ['in', { field: 'country_code', op: 'in', value: ['FR', 'DE'] }, ['d']],
    [
      'not_in also matches no value',
      { field: 'country_code', op: 'not_in', value: ['FR'] },
      ['a', 'b', 'c', 'e'],
    ],
    ['exists: a blank string is no value', { field: 'city', op: 'exists' }, ['a']],
    ['not_exists: blank or NULL', { field: 'city', op: 'not_exists' }, ['b', 'c', 'd', 'e']],
    ['email is matched normalised', { field: 'email', op: 'eq', value: 'A@Example.COM' }, ['a']],
    ['a quote is data', { field: 'first_name', op: 'eq', value: "O'Brien" }, ['d']],
    ['status', { field: 'status', op: 'eq', value: 'unsubscribed' }, ['e']],
    ['list contains', { field: 'tags', op: 'contains', value: 'beta' }, ['a']],
    ['list not_contains', { field: 'tags', op: 'not_contains', value: 'vip' }, ['e']],
    ['list in: any of', { field: 'tags', op: 'in', value: ['beta', 'nope'] }, ['a']],
    [
      'list not_in: none of',
      { field: 'tags', op: 'not_in', value: ['beta'] },
      ['b', 'c', 'd', 'e'],
    ],
    ['list exists', { field: 'interests', op: 'exists' }, ['d']],
    ['list not_exists', { field: 'tags', op: 'not_exists' }, ['e']],
    ['custom eq: a string', { field: 'custom_fields.plan', op: 'eq', value: 'pro' }, ['b']],
    ['custom eq: 5 is not "5"', { field: 'custom_fields.plan', op: 'eq', value: '5' }, []],
    ['custom eq: a number', { field: 'custom_fields.plan', op: 'eq', value: 5 }, ['c']],
    ['custom eq: a boolean', { field: 'custom_fields.trial', op: 'eq', value: true }, ['d']],
    ['custom in', { field: 'custom_fields.plan', op: 'in', value: ['pro', 5] }, ['b', 'c']],
    [
      'custom neq also matches no value',
      { field: 'custom_fields.plan', op: 'neq', value: 'pro' },
      ['a', 'c', 'd', 'e'],
    ],
    [
      'custom not_in also matches no value',
      { field: 'custom_fields.plan', op: 'not_in', value: [5] },
      ['a', 'b', 'd', 'e'],
    ],
    [
      'custom exists: JSON null is no value',
      { field: 'custom_fields.plan', op: 'exists' },
      ['b', 'c'],
    ],
    ['custom not_exists', { field: 'custom_fields.plan', op: 'not_exists' }, ['a', 'd', 'e']],
    ['date before', { field: 'birthdate', op: 'before', value: '1991-01-01' }, ['e']],
    ['date after', { field: 'birthdate', op: 'after', value: '1991-01-01' }, []],
    ['date exists', { field: 'birthdate', op: 'exists' }, ['e']],
    [
      'created_at after',
      { field: 'created_at', op: 'after', value: '2000-01-01' },
      ['a', 'b', 'c', 'd', 'e'],
    ],
    [
      'and',
      {
        and: [
          { field: 'tags', op: 'contains', value: 'vip' },
          { field: 'country_code', op: 'eq', value: 'GB' },
        ],
      },
      ['a', 'b', 'c'],
    ],
    [
      'or',
      {
        or: [
          { field: 'country_code', op: 'eq', value: 'FR' },
          { field: 'tags', op: 'contains', value: 'beta' },
        ],
      },
      ['a', 'd'],
    ],
    [
      'or inside and',
      {
        and: [
          { field: 'tags', op: 'contains', value: 'vip' },
          {
            or: [
              { field: 'custom_fields.plan', op: 'eq', value: 5 },
              { field: 'country_code', op: 'neq', value: 'GB' },
            ],
          },
        ],
      },
      ['c', 'd'],
    ],
  ])('%s', async (_name, filter, expected) => {
    expect(await matched(filter)).toEqual(expected);
    const { count } = await ctx.get(SegmentsService).countDraft(tenant.principal, filter);
    expect(count).toBe(expected.length);
  });

  it('binds hostile values as data: nothing extra matches, nothing changes', async () => {
    const before = await ctx.prisma.subscriber.count();
    expect(await matched({ field: 'country_code', op: 'eq', value: "GB' OR '1'='1" })).toEqual([]);
    expect(await matched({ field: "custom_fields.plan') OR TRUE --", op: 'exists' })).toEqual([]);
    expect(await matched({ field: 'tags', op: 'contains', value: "vip'] OR TRUE --" })).toEqual([]);
    expect(await ctx.prisma.subscriber.count()).toBe(before);
  });
});
