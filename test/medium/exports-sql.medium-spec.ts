import { ExportsRepository } from '../../src/exports/exports.repository';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of exports.sql.ts through ExportsRepository on PostgreSQL: an export starts,
 * advances and fails only in the states that allow it, and the watchdog's queries see every
 * account's stalled exports and only finished ones expire.
 */
describe('exports.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let exports: ExportsRepository;
  let pool: PgPool;
  let accountId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    exports = ctx.get(ExportsRepository);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Exports'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  it('starts, advances and fails an export only while it is queued or running', async () => {
    const id = newId();
    await exports.create(accountId, { id, segmentId: null });
    expect(await exports.start(accountId, id)).toEqual({ id, segmentId: null, fileId: null });
    await exports.progress(accountId, id, 42);
    expect(await exports.findById(accountId, id)).toMatchObject({ status: 'running', rows: 42 });
    await exports.fail(accountId, id, 'x'.repeat(600));
    const failed = (await exports.findById(accountId, id))!;
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toHaveLength(500);
    expect(await exports.start(accountId, id)).toBeUndefined();
    await exports.progress(accountId, id, 7);
    expect((await exports.findById(accountId, id))!.rows).toBe(42);
  });

  it('finds stalled exports of every account, and expires none that is not finished', async () => {
    const other = parseAccountId(await ctx.make.account('Other exports'));
    const mine = newId();
    const theirs = newId();
    await exports.create(accountId, { id: mine, segmentId: null });
    await exports.create(other, { id: theirs, segmentId: null });
    const stalled = await exports.stalledAcrossAccounts(0, 100);
    expect(stalled).toEqual(
      expect.arrayContaining([
        { id: mine, accountId },
        { id: theirs, accountId: other },
      ]),
    );
    expect(await exports.stalledAcrossAccounts(3600, 100)).toEqual([]);
    expect(
      await pool.transaction((client) => exports.expireDueAcrossAccounts(client, 100)),
    ).toEqual([]);
  });
});
