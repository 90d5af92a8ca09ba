import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig } from '../../src/platform/config/config';
import { PgPool } from '../../src/platform/database/pg-pool';
import { isTransientDatabaseError } from '../../src/platform/database/transient-errors';
import { waitFor } from '../support/wait-for';
import { TestEnv } from '../support/test-env';

const ROOT = join(__dirname, '../..');

/**
 * What no statement of Herald's may do: run on for minutes, whether it went wrong or its
 * process is gone. PostgreSQL cancels it at DB_STATEMENT_TIMEOUT_MS, and ends it within a
 * second or so of its client's death (which it would otherwise notice only when it answered).
 */
describe("Herald's PostgreSQL pool", () => {
  let env: TestEnv;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await TestEnv.create();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await env?.dispose();
  });

  it('cancels a statement that runs past the statement timeout, as an error worth retrying', async () => {
    const pool = new PgPool(
      loadConfig({
        ...process.env,
        DATABASE_URL: env.config.databaseUrl,
        HERALD_SECRET: env.config.secret,
        DB_STATEMENT_TIMEOUT_MS: '200',
      }),
    );
    try {
      const error = await pool.query('SELECT pg_sleep(30)').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: '57014' });
      expect(isTransientDatabaseError(error)).toBe(true);
      // The connection is fine afterwards.
      await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await pool.end();
    }
  });

  it('ends a statement whose process was killed', async () => {
    const tag = `orphan-probe-${randomBytes(6).toString('hex')}`;
    child = fork(
      join(ROOT, 'test/support/long-statement-child.ts'),
      [env.config.databaseUrl, tag],
      {
        cwd: ROOT,
        execArgv: ['-r', '@swc-node/register'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    await once(child, 'message');
    const observer = new PgPool(
      loadConfig({
        ...process.env,
        DATABASE_URL: env.config.databaseUrl,
        HERALD_SECRET: env.config.secret,
      }),
    );
    try {
      const running = async () => {
        const { rows } = await observer.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()`,
          [tag],
        );
        return rows[0].n;
      };
      await waitFor(async () => (await running()) === 1, {
        message: 'the statement never started',
      });
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      await waitFor(async () => (await running()) === 0, {
        timeoutMs: 10_000,
        message: "the killed process's statement still runs",
      });
    } finally {
      await observer.end();
    }
  });
});
