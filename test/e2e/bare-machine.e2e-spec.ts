import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HeraldProcess } from '../support/herald-process';
import { alive, childrenOf, freePort, ROOT, waitForOk } from '../support/processes';
import { tcpPeerPorts } from '../support/tcp-peers';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);

/**
 * Herald on a machine with nothing but Node: DATABASE_URL and REDIS_URL unset. `npm run setup`
 * (its migrate step) then `npm start` start an embedded PostgreSQL under the installation's
 * directory and keep queues, rate limits and locks in it; the README's CLI steps and a campaign
 * work; no process ever opens a TCP connection to a PostgreSQL or Redis port. The processes of
 * the installation share one server, and the last one to stop stops it.
 */
describe('two commands on a bare machine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bare-'));
  // As a clone's directory is: others may pass through (the server may run as another user).
  chmodSync(dir, 0o755);
  const pgDir = join(dir, 'var', 'postgres');
  let port: number;
  let env: NodeJS.ProcessEnv;
  const processes: HeraldProcess[] = [];

  beforeAll(async () => {
    port = await freePort();
    // What a bare machine has: no DATABASE_URL, no REDIS_URL. The installation's directory is
    // a fresh one (var/ of a clean clone), named explicitly so the test leaves the repo alone.
    env = {
      PATH: process.env.PATH,
      PORT: String(port),
      EMBEDDED_POSTGRES_DIR: pgDir,
      OUTBOX_DIR: join(dir, 'var', 'outbox'),
      HERALD_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'info',
    };
  });
  afterAll(async () => {
    await Promise.all(processes.map((herald) => herald.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const node = (script: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
    run(process.execPath, [join(ROOT, 'dist', script), ...args], {
      cwd: ROOT,
      env: { ...env, ...extra },
    });
  const cli = async (...args: string[]) =>
    JSON.parse((await node('cli/cli.js', args)).stdout) as Record<string, string>;

  /** Herald's processes now: every started one and its children (npm start's worker). */
  const heraldPids = () =>
    processes
      .filter((herald) => herald.running)
      .flatMap((herald) => [herald.pid, ...childrenOf(herald.pid)]);

  const postmaster = () => {
    const file = join(pgDir, 'data', 'postmaster.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
  };

  it('sets up the embedded PostgreSQL and migrates it (npm run setup)', async () => {
    const { stdout, stderr } = await node('platform/database/migrate-main.js', []);
    expect(stderr).toContain('initialising the embedded PostgreSQL');
    expect(stdout).toMatch(/Applied \d+ migration\(s\)/);
    // The only user left: the server stopped with it.
    await waitFor(() => postmaster() === undefined, { message: 'the server did not stop' });
  }, 120_000);

  it('sends a campaign into the outbox after npm start and the CLI, over no TCP store port', async () => {
    const herald = HeraldProcess.start('all', 'npm start', env);
    processes.push(herald);
    await waitForOk(`http://127.0.0.1:${port}/health`, 90_000);
    expect(herald.output.join('')).toContain('queues, rate limits and locks in PostgreSQL');

    const account = await cli('accounts', 'create', '--name', 'Acme');
    const { key } = await cli(
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'ci',
      '--scopes',
      'subscribers:write,campaigns:write,campaigns:send,campaigns:read',
    );
    const api = (path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }));
    for (const name of ['ada', 'grace', 'edsger']) {
      expect((await api('/v1/subscribers', { email: `${name}@example.com` })).status).toBe(201);
    }
    const campaign = await api('/v1/campaigns', {
      name: 'Hello',
      subject: 'Hello',
      from: 'news@example.com',
      html: '<p>Hi</p>',
      text: 'Hi',
    });
    expect((await api(`/v1/campaigns/${String(campaign.body.id)}/send`, {})).status).toBe(202);
    await waitFor(
      async () => (await api(`/v1/campaigns/${String(campaign.body.id)}`)).body.status === 'sent',
      {
        timeoutMs: 60_000,
        message: 'the campaign was not sent',
      },
    );
    const outbox = readdirSync(env.OUTBOX_DIR!, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.eml'));
    expect(outbox).toHaveLength(3);

    // The API and its worker hold connections to PostgreSQL, over its Unix socket only.
    const pids = heraldPids();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of pids) {
      expect(tcpPeerPorts(pid).filter((peer) => peer === 5432 || peer === 6379)).toEqual([]);
    }
  }, 240_000);

  it('shares one server among the processes of the installation, stopped by the last one', async () => {
    const server = postmaster();
    expect(server).toBeDefined();
    const worker = HeraldProcess.start('worker', 'start:worker', env);
    processes.push(worker);
    await waitFor(() => readdirSync(join(pgDir, 'users')).includes(String(worker.pid)), {
      timeoutMs: 60_000,
      message: 'the worker did not join the server',
    });
    expect(postmaster()).toBe(server);

    // Each must leave by its own exit, not be killed after a grace (a SIGKILL cannot leave),
    // so the grace is the process's own (SHUTDOWN_GRACE_SECONDS, 30 s), with room for a loaded
    // machine.
    await processes[0].stop(60_000);
    expect(processes[0].ended?.signal).toBeNull();
    // The worker still uses it.
    expect(alive(server!)).toBe(true);
    await worker.stop(60_000);
    expect(worker.ended?.signal).toBeNull();
    await waitFor(() => !alive(server!), {
      timeoutMs: 30_000,
      message: 'the last process left the server running',
    });
    expect(postmaster()).toBeUndefined();
  }, 240_000);

  const asRoot = process.getuid?.() === 0;

  (asRoot ? it : it.skip)(
    'runs the server as the postgres user when Herald runs as root',
    async () => {
      expect(statSync(join(pgDir, 'data')).uid).not.toBe(0);
      await expect(
        node('platform/database/migrate-main.js', [], {
          EMBEDDED_POSTGRES_USER: 'no-such-user-here',
        }),
      ).rejects.toMatchObject({
        stderr: expect.stringContaining('PostgreSQL refuses to run as root'),
      });
    },
  );
});
