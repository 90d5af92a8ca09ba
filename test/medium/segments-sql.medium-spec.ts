import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { parseSegmentFilter } from '../../src/segments/segment-filter';
import { SegmentsRepository } from '../../src/segments/segments.repository';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of segments.sql.ts through SegmentsRepository on PostgreSQL, each within one
 * account: the audience count of a compiled filter, and the two statements erasure uses to
 * find the filters that may name an email and rewrite one without touching updated_at.
 * (segment-sql.medium-spec checks, filter by filter, which rows a compiled condition matches.)
 */
describe('segments.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let segments: SegmentsRepository;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    segments = ctx.get(SegmentsRepository);
    accountId = parseAccountId(await ctx.make.account('Segments'));
    otherId = parseAccountId(await ctx.make.account('Other segments'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  it('counts the account’s subscribers a filter matches, and no one else’s', async () => {
    await ctx.make.subscriber(accountId, { email: 'gb1@example.test', countryCode: 'GB' });
    await ctx.make.subscriber(accountId, { email: 'gb2@example.test', countryCode: 'GB' });
    await ctx.make.subscriber(accountId, { email: 'fr@example.test', countryCode: 'FR' });
    await ctx.make.subscriber(otherId, { email: 'gb@example.test', countryCode: 'GB' });
    const inGb = parseSegmentFilter({ field: 'country_code', op: 'eq', value: 'GB' });
    expect(await segments.countMatching(accountId, inGb)).toBe(2);
    expect(await segments.countMatching(otherId, inGb)).toBe(1);
    const nobody = parseSegmentFilter({ field: 'country_code', op: 'eq', value: 'JP' });
    expect(await segments.countMatching(accountId, nobody)).toBe(0);
  });

  it('finds the account’s filters that name an email, and only those', async () => {
    const byEmail = await ctx.make.segment(accountId, {
      field: 'email',
      op: 'eq',
      value: 'ada@example.test',
    });
    await ctx.make.segment(accountId, { field: 'country_code', op: 'eq', value: 'GB' });
    await ctx.make.segment(otherId, { field: 'email', op: 'eq', value: 'ada@example.test' });
    const found = await segments.filtersWithEmailConditions(accountId, ctx.prisma);
    expect(found).toEqual([
      { id: byEmail.id, filter: { field: 'email', op: 'eq', value: 'ada@example.test' } },
    ]);
  });

  it('rewrites a filter in place, leaving updated_at and other accounts alone', async () => {
    const mine = await ctx.make.segment(accountId, {
      field: 'email',
      op: 'eq',
      value: 'bob@example.test',
    });
    const theirs = await ctx.make.segment(otherId, {
      field: 'email',
      op: 'eq',
      value: 'bob@example.test',
    });
    const replaced = { field: 'email', op: 'eq', value: 'erased' };
    await segments.replaceFilter(accountId, mine.id, replaced, ctx.prisma);
    // The other account's segment under this account: nothing happens.
    await segments.replaceFilter(accountId, theirs.id, replaced, ctx.prisma);

    const after = await ctx.prisma.segment.findUniqueOrThrow({ where: { id: mine.id } });
    expect(after.filter).toEqual(replaced);
    expect(after.updatedAt).toEqual(mine.updatedAt);
    const untouched = await ctx.prisma.segment.findUniqueOrThrow({ where: { id: theirs.id } });
    expect(untouched.filter).toEqual({ field: 'email', op: 'eq', value: 'bob@example.test' });
  });
});
