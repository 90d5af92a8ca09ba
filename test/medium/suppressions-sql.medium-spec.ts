import { ComposedStatement, relation } from '../../src/platform/database/composed-statement';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { SuppressionsRepository } from '../../src/suppression/suppressions.repository';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of suppressions.sql.ts through SuppressionsRepository on PostgreSQL: an
 * address is listed once and keeps its first reason, the send path's check and the removal
 * see only the account's own list, and the composed write lists the marked addresses of a
 * relation, skipping those already listed.
 */
describe('suppressions.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let suppressions: SuppressionsRepository;
  let pool: PgPool;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    suppressions = ctx.get(SuppressionsRepository);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Suppressions'));
    otherId = parseAccountId(await ctx.make.account('Other suppressions'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  it('lists an address once, keeping its first reason, per account', async () => {
    const first = await suppressions.add(accountId, 'once@example.test', 'hard_bounce');
    expect(first).toMatchObject({ created: true, entry: { reason: 'hard_bounce' } });
    const again = await suppressions.add(accountId, 'once@example.test', 'complaint');
    expect(again).toEqual({ created: false, entry: first.entry });
    const elsewhere = await suppressions.add(otherId, 'once@example.test', 'manual');
    expect(elsewhere).toMatchObject({ created: true, entry: { reason: 'manual' } });
  });

  it('tells the send path which addresses the account lists', async () => {
    await suppressions.add(accountId, 'listed@example.test', 'manual');
    await suppressions.add(otherId, 'theirs@example.test', 'manual');
    expect(
      await suppressions.listedAmong(accountId, [
        'listed@example.test',
        'theirs@example.test',
        'free@example.test',
      ]),
    ).toEqual(new Set(['listed@example.test']));
  });

  it('removes the account’s entry only, returning what it was', async () => {
    const { entry } = await suppressions.add(accountId, 'gone@example.test', 'complaint');
    await suppressions.add(otherId, 'gone@example.test', 'manual');
    expect(await suppressions.remove(otherId, 'nobody@example.test', ctx.prisma)).toBeNull();
    expect(await suppressions.remove(accountId, 'gone@example.test', ctx.prisma)).toEqual(entry);
    expect(await suppressions.remove(accountId, 'gone@example.test', ctx.prisma)).toBeNull();
    expect(await suppressions.listedAmong(otherId, ['gone@example.test'])).toEqual(
      new Set(['gone@example.test']),
    );
  });

  it('lists the marked addresses of a composed write, skipping those already listed', async () => {
    await suppressions.add(accountId, 'known@example.test', 'manual');
    const statement = new ComposedStatement();
    const source = relation<'email_normalized' | 'suppress'>('outcomes');
    statement.with(`outcomes AS (
      SELECT * FROM unnest(${statement.param([
        'bounced@example.test',
        'known@example.test',
        'fine@example.test',
      ])}::text[], ${statement.param([true, true, false])}::bool[])
        AS o(email_normalized, suppress))`);
    suppressions.addFrom(statement, accountId, source, 3, 'hard_bounce');
    const { text, values } = statement.build('SELECT 1');
    await pool.query(text, values);

    expect(
      await suppressions.listedAmong(accountId, [
        'bounced@example.test',
        'known@example.test',
        'fine@example.test',
      ]),
    ).toEqual(new Set(['bounced@example.test', 'known@example.test']));
    expect(await suppressions.find(accountId, 'bounced@example.test')).toMatchObject({
      reason: 'hard_bounce',
    });
    expect(await suppressions.find(accountId, 'known@example.test')).toMatchObject({
      reason: 'manual',
    });
    expect(await suppressions.listedAmong(otherId, ['bounced@example.test'])).toEqual(new Set());
  });
});
