import { Readable } from 'node:stream';
import { ImportsRepository } from '../../src/imports/imports.repository';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { FileStore } from '../../src/platform/storage/file-store';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';
import { latch, waitFor } from '../support/wait-for';

/**
 * The statements of imports.sql.ts through ImportsRepository on PostgreSQL: an import starts
 * once it is queued, its checkpoint is locked so a second runner waits and sees it moved, the
 * counters add up batch by batch, row errors are written once and paged in row order, it
 * finishes or fails only from the states that allow it, and the watchdog finds idle imports
 * of every account.
 */
describe('imports.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let imports: ImportsRepository;
  let files: FileStore;
  let pool: PgPool;
  let accountId: AccountId;
  let otherId: AccountId;
  const none = { created: 0, updated: 0, unchanged: 0, skippedErased: 0, failed: 0 };

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    imports = ctx.get(ImportsRepository);
    files = ctx.get(FileStore);
    pool = ctx.get(PgPool);
    otherId = parseAccountId(await ctx.make.account('Other imports'));
  });
  // An account holds few unfinished bulk jobs at once: each test starts with a fresh one.
  beforeEach(async () => {
    accountId = parseAccountId(await ctx.make.account('Imports'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  async function queued(owner: AccountId = accountId, rowsTotal = 10) {
    const file = await files.write(owner, 'import', Readable.from(['email\na@example.test\n']));
    const created = await imports.create(owner, {
      id: newId(),
      mode: 'upsert',
      columns: { delimiter: ',', columns: [] },
      fileId: file.id,
      fileBytes: file.bytes,
      rowsTotal,
    });
    if (!created) throw new Error('no room for an import');
    return created.id;
  }

  const row = async (owner: AccountId, id: string) => (await imports.findById(owner, id))!;

  it('starts a queued import of its own account, and resumes a running one', async () => {
    const id = await queued();
    expect(await imports.start(otherId, id)).toBeUndefined();
    expect((await row(accountId, id)).status).toBe('queued');

    const run = await imports.start(accountId, id);
    expect(run).toMatchObject({ id, mode: 'upsert', rowsTotal: 10, rowsProcessed: 0 });
    const started = (await row(accountId, id)).startedAt!;
    const resumed = await imports.start(accountId, id);
    expect(resumed?.id).toBe(id);
    // A resumed import keeps the moment it first started.
    expect((await row(accountId, id)).startedAt).toEqual(started);

    await pool.transaction((client) => imports.finish(client, accountId, id));
    expect(await imports.start(accountId, id)).toBeUndefined();
  });

  it('adds each batch to the counters, and the total is never less than what is done', async () => {
    const id = await queued(accountId, 3);
    await imports.start(accountId, id);
    await imports.setTotal(otherId, id, 99);
    expect((await row(accountId, id)).rowsTotal).toBe(3);
    await pool.transaction((client) =>
      imports.advance(client, accountId, id, 2, { ...none, created: 1, failed: 1 }, []),
    );
    await pool.transaction((client) =>
      imports.advance(client, accountId, id, 5, { ...none, updated: 2, skippedErased: 1 }, []),
    );
    // Another account's write moves nothing.
    await pool.transaction((client) =>
      imports.advance(client, otherId, id, 50, { ...none, created: 40 }, []),
    );
    expect(await row(accountId, id)).toMatchObject({
      rowsProcessed: 5,
      rowsTotal: 5,
      created: 1,
      updated: 2,
      unchanged: 0,
      skippedErased: 1,
      failed: 1,
    });
    await pool.transaction((client) => imports.finish(client, accountId, id));
    expect(await row(accountId, id)).toMatchObject({ status: 'done', rowsTotal: 5, fileId: null });
  });

  it('makes a second runner wait on the checkpoint, then see it moved', async () => {
    const id = await queued();
    await imports.start(accountId, id);
    const releaseFirst = latch();
    let firstLocked = false;
    const first = pool.transaction(async (client) => {
      expect(await imports.lockCheckpoint(client, accountId, id)).toEqual({
        rowsProcessed: 0,
        status: 'running',
      });
      firstLocked = true;
      await releaseFirst.opened;
      await imports.advance(client, accountId, id, 4, { ...none, created: 4 }, []);
    });
    await waitFor(() => firstLocked);
    let secondSaw: unknown;
    const second = pool.transaction(async (client) => {
      secondSaw = await imports.lockCheckpoint(client, accountId, id);
    });
    // The second runner is blocked on the row lock until the first commits.
    await waitFor(async () => {
      const waiting = await env.sql(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return waiting.length > 0;
    });
    expect(secondSaw).toBeUndefined();
    releaseFirst.open();
    await Promise.all([first, second]);
    expect(secondSaw).toEqual({ rowsProcessed: 4, status: 'running' });
    expect(await pool.transaction((c) => imports.lockCheckpoint(c, otherId, id))).toBeUndefined();
  });

  it('writes row errors once and pages them by row and field', async () => {
    const id = await queued();
    await imports.start(accountId, id);
    const errors = [
      { row: 3, field: 'email', message: 'not an address' },
      { row: 1, field: 'first_name', message: 'too long' },
      { row: 1, field: 'email', message: 'missing' },
    ];
    await pool.transaction((c) => imports.advance(c, accountId, id, 3, none, errors));
    // A batch written again (its runner crashed after the commit) adds no duplicates.
    await pool.transaction((c) => imports.advance(c, accountId, id, 3, none, errors));
    expect(await imports.errorsAfter(id, { row: 0, field: '' }, 2)).toEqual([
      { row: 1, field: 'email', message: 'missing' },
      { row: 1, field: 'first_name', message: 'too long' },
    ]);
    expect(await imports.errorsAfter(id, { row: 1, field: 'first_name' }, 2)).toEqual([
      { row: 3, field: 'email', message: 'not an address' },
    ]);
  });

  it('fails a queued or running import only, and lets go of its file', async () => {
    const failing = await queued();
    await pool.transaction((c) => imports.fail(c, otherId, failing, 'not yours'));
    expect((await row(accountId, failing)).status).toBe('queued');
    await pool.transaction((c) => imports.fail(c, accountId, failing, 'unreadable'));
    expect(await row(accountId, failing)).toMatchObject({
      status: 'failed',
      failureReason: 'unreadable',
      fileId: null,
    });
    await pool.transaction((c) => imports.finish(c, accountId, failing));
    expect((await row(accountId, failing)).status).toBe('failed');

    const done = await queued();
    await imports.start(accountId, done);
    await pool.transaction((c) => imports.finish(c, accountId, done));
    await pool.transaction((c) => imports.fail(c, accountId, done, 'too late'));
    expect(await row(accountId, done)).toMatchObject({ status: 'done', failureReason: null });
  });

  it('finds idle queued and running imports of every account, not finished ones', async () => {
    const idleQueued = await queued(otherId);
    const idleRunning = await queued();
    await imports.start(accountId, idleRunning);
    const busy = await queued();
    await imports.start(accountId, busy);
    const finished = await queued();
    await imports.start(accountId, finished);
    await pool.transaction((c) => imports.finish(c, accountId, finished));
    await env.sql(
      `UPDATE subscriber_imports SET progress_at = now() - interval '1 hour',
              created_at = now() - interval '1 hour' WHERE id = ANY($1::uuid[])`,
      [[idleQueued, idleRunning, finished]],
    );
    const stalled = await imports.stalledAcrossAccounts(600, 100);
    expect(stalled).toEqual(
      expect.arrayContaining([
        { id: idleQueued, accountId: otherId },
        { id: idleRunning, accountId },
      ]),
    );
    const ids = stalled.map((s) => s.id);
    expect(ids).not.toContain(busy);
    expect(ids).not.toContain(finished);
    expect(await imports.stalledAcrossAccounts(600, 1)).toHaveLength(1);
  });
});
