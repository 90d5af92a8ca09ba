import { Readable } from 'node:stream';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { FILE_CHUNK_BYTES } from '../../src/platform/settings';
import { FileStore, FileTooLargeError } from '../../src/platform/storage/file-store';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of file-store.sql.ts through FileStore on PostgreSQL: a file is written in
 * chunks and read back whole only once completed and only by its account; deletes touch the
 * account's own files; the sweep removes uploads that never completed, of any account.
 */
describe('file-store.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let files: FileStore;
  let pool: PgPool;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    files = ctx.get(FileStore);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Files'));
    otherId = parseAccountId(await ctx.make.account('Other files'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  async function readAll(owner: AccountId, id: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of files.read(owner, id)) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  const exists = async (id: string) =>
    (await env.sql('SELECT 1 FROM stored_files WHERE id = $1', [id])).length === 1;

  it('stores a stream in chunks and reads it back whole, for its account only', async () => {
    const content = Buffer.alloc(FILE_CHUNK_BYTES * 2 + 100);
    for (let i = 0; i < content.length; i++) content[i] = i % 251;
    const parts: Buffer[] = [];
    for (let at = 0; at < content.length; at += 4096) parts.push(content.subarray(at, at + 4096));
    const { id, bytes } = await files.write(accountId, 'import', Readable.from(parts));
    expect(bytes).toBe(content.length);
    // Small writes are gathered into chunks of at least FILE_CHUNK_BYTES, the last one shorter.
    const chunks = await env.sql<{ seq: number; size: number }>(
      'SELECT seq, length(data) AS size FROM stored_file_chunks WHERE file_id = $1 ORDER BY seq',
      [id],
    );
    expect(chunks.map((c) => c.seq)).toEqual([0, 1, 2]);
    expect(chunks[0].size).toBeGreaterThanOrEqual(FILE_CHUNK_BYTES);
    expect(chunks[1].size).toBeGreaterThanOrEqual(FILE_CHUNK_BYTES);
    expect((await readAll(accountId, id)).equals(content)).toBe(true);
    expect((await readAll(otherId, id)).length).toBe(0);
  });

  it('reads nothing of a file that is not completed yet', async () => {
    const id = newId();
    await env.sql('INSERT INTO stored_files (id, account_id, purpose) VALUES ($1, $2, $3)', [
      id,
      accountId,
      'import',
    ]);
    await env.sql('INSERT INTO stored_file_chunks (file_id, seq, data) VALUES ($1, 0, $2)', [
      id,
      Buffer.from('partial'),
    ]);
    expect((await readAll(accountId, id)).length).toBe(0);
  });

  it('deletes a file that passes its limit, and deletes only the account’s own files', async () => {
    const before = await env.sql<{ n: string }>('SELECT count(*) AS n FROM stored_files');
    await expect(
      files.write(accountId, 'import', Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), 15),
    ).rejects.toBeInstanceOf(FileTooLargeError);
    expect(await env.sql('SELECT count(*) AS n FROM stored_files')).toEqual(before);

    const mine = await files.write(accountId, 'export', Readable.from(['a']));
    const theirs = await files.write(otherId, 'export', Readable.from(['b']));
    await files.delete(accountId, theirs.id);
    await files.deleteMany(accountId, [mine.id, theirs.id], pool);
    expect(await exists(mine.id)).toBe(false);
    expect(await exists(theirs.id)).toBe(true);
    expect((await readAll(otherId, theirs.id)).toString()).toBe('b');

    const again = await files.write(accountId, 'export', Readable.from(['c']));
    await ctx.prisma.$transaction((tx) => files.deleteManyInTransaction(otherId, [again.id], tx));
    expect(await exists(again.id)).toBe(true);
    await files.delete(otherId, theirs.id);
    expect(await exists(theirs.id)).toBe(false);
    const [left] = await env.sql<{ n: string }>(
      'SELECT count(*) AS n FROM stored_file_chunks WHERE file_id = $1',
      [theirs.id],
    );
    expect(Number(left.n)).toBe(0);
  });

  it('sweeps uploads of every account that never completed before the cutoff', async () => {
    const abandoned = async (owner: AccountId, age: string) => {
      const id = newId();
      await env.sql(
        `INSERT INTO stored_files (id, account_id, purpose, created_at)
         VALUES ($1, $2, 'import', now() - $3::interval)`,
        [id, owner, age],
      );
      return id;
    };
    const old = await abandoned(accountId, '2 hours');
    const otherOld = await abandoned(otherId, '2 hours');
    const recent = await abandoned(accountId, '1 minute');
    const done = await files.write(accountId, 'import', Readable.from(['kept']));
    await env.sql(`UPDATE stored_files SET created_at = now() - interval '2 hours' WHERE id = $1`, [
      done.id,
    ]);
    const cutoff = new Date(Date.now() - 3_600_000);
    expect(await files.deleteAbandonedAcrossAccounts(cutoff, 1)).toBe(1);
    expect(await files.deleteAbandonedAcrossAccounts(cutoff, 100)).toBe(1);
    expect(await files.deleteAbandonedAcrossAccounts(cutoff, 100)).toBe(0);
    expect(await exists(old)).toBe(false);
    expect(await exists(otherOld)).toBe(false);
    expect(await exists(recent)).toBe(true);
    expect(await exists(done.id)).toBe(true);
  });
});
