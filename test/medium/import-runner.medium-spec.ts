import { Readable } from 'node:stream';
import { ImportRunner } from '../../src/imports/import-runner';
import { planImport } from '../../src/imports/import-plan';
import { ImportsRepository } from '../../src/imports/imports.repository';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { FileStore } from '../../src/platform/storage/file-store';
import { SubscriberBulkWriter } from '../../src/subscribers/subscriber-bulk-writer';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

const ROWS = 5_500; // six batches, the last one short
const FAILING_ROW = 2_500; // in the third batch

const emailOf = (row: number) => `reader${row}@runner.example`;

/**
 * ImportRunner on PostgreSQL, with batches prepared while earlier ones are still being
 * written: when a batch's write fails, the batches queued behind it are not written either,
 * the import stops at the last committed batch, and a second run resumes right after it and
 * writes every row exactly once.
 */
describe('ImportRunner', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let runner: ImportRunner;
  let imports: ImportsRepository;
  let pool: PgPool;
  let accountId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    imports = ctx.get(ImportsRepository);
    pool = ctx.get(PgPool);
    // A worker's runner, without the worker's processors (which would take queued jobs).
    runner = new ImportRunner(imports, ctx.get(FileStore), pool, ctx.get(SubscriberBulkWriter));
    accountId = parseAccountId(await ctx.make.account('Import runner'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  async function queuedImport(): Promise<string> {
    const lines = ['email,first_name'];
    for (let row = 1; row <= ROWS; row++) lines.push(`${emailOf(row)},Reader ${row}`);
    const csv = Buffer.from(`${lines.join('\n')}\n`);
    const file = await ctx.get(FileStore).write(accountId, 'import', Readable.from([csv]));
    const created = await imports.create(accountId, {
      id: newId(),
      mode: 'upsert',
      columns: await planImport(csv.subarray(0, 64 * 1024)),
      fileId: file.id,
      fileBytes: file.bytes,
      rowsTotal: ROWS,
    });
    return created!.id;
  }

  async function writtenRows(): Promise<number[]> {
    const { rows } = await pool.query<{ email: string }>(
      'SELECT email FROM subscribers WHERE account_id = $1',
      [accountId],
    );
    return rows.map(({ email }) => Number(/^reader(\d+)@/.exec(email)![1])).sort((a, b) => a - b);
  }

  it('stops at the batch whose write fails, writes nothing queued behind it, and resumes after it', async () => {
    const id = await queuedImport();
    // Any failure of a write that is not the database going away (a trigger, a permission).
    await pool.query(`
      CREATE FUNCTION refuse_one_reader() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
    await pool.query(`
      CREATE TRIGGER refuse_one_reader BEFORE INSERT ON subscribers FOR EACH ROW
      WHEN (NEW.email = '${emailOf(FAILING_ROW)}') EXECUTE FUNCTION refuse_one_reader()`);

    await expect(runner.run(accountId, id)).rejects.toThrow('refused by the test');

    const stopped = await imports.findById(accountId, id);
    expect(stopped).toMatchObject({ status: 'running', rowsProcessed: 2_000, created: 2_000 });
    const before = await writtenRows();
    expect(before).toEqual(Array.from({ length: 2_000 }, (_, index) => index + 1));

    await pool.query('DROP TRIGGER refuse_one_reader ON subscribers');
    await pool.query('DROP FUNCTION refuse_one_reader()');
    await runner.run(accountId, id);

    const done = await imports.findById(accountId, id);
    expect(done).toMatchObject({ status: 'done', rowsProcessed: ROWS, created: ROWS, failed: 0 });
    expect(await writtenRows()).toEqual(Array.from({ length: ROWS }, (_, index) => index + 1));
  });
});
