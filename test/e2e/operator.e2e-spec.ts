import { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { getPriority } from 'node:os';
import request from 'supertest';
import { createHttpApp } from '../../src/http-app';
import { KEY_CACHE_TTL_MS } from '../../src/auth/auth.settings';
import { ALL_IN_ONE_WORKER_NICE } from '../../src/platform/cpu-priority';
import {
  childrenOf,
  cli,
  freePort,
  processEnv,
  startNode,
  stop,
  waitForOk,
} from '../support/processes';
import { TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/** What an operator meets: the CLI, `npm start`, /health, /docs. */
describe('operator CLI and the running server', () => {
  let env: TestEnv;
  let server: ChildProcess | undefined;
  let base: string;

  beforeAll(async () => {
    env = await TestEnv.create();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = startNode('dist/main.js', [], processEnv(env, { PORT: String(port) }));
    await waitForOk(`${base}/health`);
  });
  afterAll(async () => {
    await stop(server);
    await env?.dispose();
  });

  const v1 = (path: string, key: string) =>
    fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  const refusedSoon = (key: string) =>
    waitFor(async () => (await v1('/v1/subscribers', key)).status === 401, {
      timeoutMs: KEY_CACHE_TTL_MS / 5,
      message: 'the changed key is still accepted',
    });

  it('runs its send workers at a lower CPU priority than its API, and a worker at WORKER_NICE', async () => {
    // The child lowers its own priority as it starts: wait for that, not for the fork.
    await waitFor(
      () => {
        const priorities = childrenOf(server!.pid!).map((pid) => getPriority(pid));
        return priorities.length === 1 && priorities[0] === ALL_IN_ONE_WORKER_NICE;
      },
      {
        message: () =>
          `the workers run at ${childrenOf(server!.pid!)
            .map((pid) => getPriority(pid))
            .join()}`,
      },
    );
    expect(getPriority(server!.pid)).toBe(0);

    const worker = startNode('dist/worker.js', [], processEnv(env, { WORKER_NICE: '7' }));
    try {
      await waitFor(() => getPriority(worker.pid) === 7, {
        message: () => `the worker runs at nice ${getPriority(worker.pid)}`,
      });
    } finally {
      await stop(worker);
    }
  });

  it('answers /health with 200 {"status":"ok"}', async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('creates an account and a key that works, then revokes and suspends keys', async () => {
    const account = await cli(env, ['accounts', 'create', '--name', 'Acme']);
    expect(account.code).toBe(0);
    const created = JSON.parse(account.stdout);
    expect(created).toEqual({ id: expect.any(String), name: 'Acme' });
    expect(account.stdout.trim().split('\n')).toHaveLength(1);

    const keyRun = await cli(env, [
      'keys',
      'create',
      '--account',
      created.id,
      '--name',
      'ci',
      '--scopes',
      'subscribers:read,subscribers:write',
    ]);
    expect(keyRun.code).toBe(0);
    const key = JSON.parse(keyRun.stdout);
    expect(key).toEqual({
      id: expect.any(String),
      name: 'ci',
      key: expect.stringMatching(/^sk_live_[A-Za-z0-9_-]{43}$/),
      scopes: ['subscribers:read', 'subscribers:write'],
    });
    expect((await v1('/v1/subscribers', key.key)).status).toBe(200);
    expect((await v1('/v1/templates', key.key)).status).toBe(403);

    const revoked = await cli(env, ['keys', 'revoke', '--id', key.id]);
    expect(JSON.parse(revoked.stdout)).toEqual({ id: key.id, status: 'revoked' });
    // The server cached the key it verified; PostgreSQL tells it of the change in moments.
    await refusedSoon(key.key);

    const second = JSON.parse(
      (
        await cli(env, [
          'keys',
          'create',
          '--account',
          created.id,
          '--name',
          'b',
          '--scopes',
          'subscribers:read',
        ])
      ).stdout,
    );
    const suspended = await cli(env, ['keys', 'suspend', '--id', second.id]);
    expect(JSON.parse(suspended.stdout)).toEqual({ id: second.id, status: 'suspended' });
    await refusedSoon(second.key);
  });

  it.each([
    [['accounts', 'create']],
    [
      [
        'keys',
        'create',
        '--account',
        '01900000-0000-7000-8000-000000000000',
        '--name',
        'x',
        '--scopes',
        'subscribers:read',
      ],
    ],
    [['keys', 'create', '--account', 'nope', '--name', 'x', '--scopes', 'subscribers:read']],
    [['keys', 'revoke', '--id', '01900000-0000-7000-8000-000000000000']],
    [['keys', 'rotate', '--id', 'x']],
    [['frobnicate']],
    [['users', 'create', '--account', 'x', '--email', 'a@b.test', '--password', 'on-argv']],
    [['users', 'create', '--account', 'x', '--email', 'a@b.test']],
  ])('fails with a message on stderr and nothing on stdout: %j', async (args) => {
    const result = await cli(env, args);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/error: .+/);
  });

  it("answers --help with the commands, and a command's --help with its options", async () => {
    const overview = await cli(env, ['--help']);
    expect(overview.code).toBe(0);
    for (const command of ['accounts create', 'keys create', 'keys revoke', 'users create']) {
      expect(overview.stdout).toContain(command);
    }
    const keys = await cli(env, ['keys', 'create', '--help']);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toMatch(/--account ACCOUNT_ID[\s\S]*--scopes/);
    expect(keys.stdout).toContain('subscribers:read');
  });

  it('refuses unknown scopes', async () => {
    const account = JSON.parse((await cli(env, ['accounts', 'create', '--name', 'Scoped'])).stdout);
    const result = await cli(env, [
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'x',
      '--scopes',
      'subscribers:read,everything',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('everything');
  });

  it('serves the OpenAPI document with each operation’s scope, and the docs page', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const list = doc.paths['/v1/subscribers'].get;
    expect(list.security).toEqual([{ apiKey: [] }]);
    expect(list['x-required-scope']).toBe('subscribers:read');
    expect(doc.paths['/v1/subscribers/{id}'].patch['x-required-scope']).toBe('subscribers:write');
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger');
  });
});

describe('/health when Redis is unreachable', () => {
  it('answers 503', async () => {
    const env = await TestEnv.create({ REDIS_URL: 'redis://127.0.0.1:1' });
    // API only: this is about /health; worker shutdown without Redis is bounded in lifecycle.ts.
    const app = await createHttpApp(env.config, { workers: false });
    try {
      const response = await request(app.getHttpServer()).get('/health');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ status: 'unavailable', database: true, redis: false });
    } finally {
      await app.close();
      await env.dispose();
    }
  });
});

describe('shutdown', () => {
  it('exits on SIGTERM within the grace period even while Redis is down', async () => {
    const env = await TestEnv.create();
    const port = await freePort();
    const server = startNode(
      'dist/main.js',
      [],
      processEnv(env, { PORT: String(port), REDIS_URL: 'redis://127.0.0.1:1' }),
    );
    try {
      let status = 0;
      await waitFor(
        async () => {
          status = await fetch(`http://127.0.0.1:${port}/health`).then(
            (response) => response.status,
            () => 0,
          );
          return status === 503;
        },
        // Generous: the server boots in a second or two, far longer on a machine under load.
        { timeoutMs: 45_000, intervalMs: 200 },
      ).catch(() => undefined); // the assertion below names the status it saw
      expect(status).toBe(503);
      const started = Date.now();
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      server.kill('SIGKILL');
      await env.dispose();
    }
  }, 90_000);
});
