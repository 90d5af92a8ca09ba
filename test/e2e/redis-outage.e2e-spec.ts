import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cli, freePort, processEnv, ROOT } from '../support/processes';
import { TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * `npm start` (API and workers in one process) whose Redis is unreachable: requests answer
 * in bounded time, the log says what is wrong without a stack trace per reconnect, and
 * SIGTERM ends the process.
 */
describe('a running server whose Redis is unreachable', () => {
  let env: TestEnv;
  let server: ChildProcess;
  let base: string;
  let key: string;
  const output: string[] = [];

  beforeAll(async () => {
    env = await TestEnv.create({ REDIS_URL: 'redis://127.0.0.1:1' });
    const account = JSON.parse((await cli(env, ['accounts', 'create', '--name', 'Acme'])).stdout);
    const created = await cli(env, [
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'outage',
      '--scopes',
      'subscribers:read,subscribers:write,campaigns:write,campaigns:send,transactional:send',
    ]);
    key = JSON.parse(created.stdout).key;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn('node', ['dist/main.js'], {
      cwd: ROOT,
      env: processEnv(env, {
        PORT: String(port),
        REDIS_URL: 'redis://127.0.0.1:1',
        ALLOW_UNVERIFIED_FROM: '1',
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await waitFor(
      () =>
        fetch(`${base}/health`).then(
          (response) => response.status === 503,
          () => false,
        ),
      { timeoutMs: 45_000, intervalMs: 200, message: '/health did not answer 503' },
    );
  }, 90_000);
  afterAll(async () => {
    server?.kill('SIGKILL');
    await env?.dispose();
  });

  /** One API call, with how long it took to answer. */
  async function timed(method: string, path: string, body?: unknown) {
    const started = Date.now();
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { id?: string; status?: string };
    return { status: response.status, body: json, ms: Date.now() - started };
  }

  it('answers reads and writes that do not need Redis as usual', async () => {
    const created = await timed('POST', '/v1/subscribers', { email: 'ada@example.com' });
    expect(created.status).toBe(201);
    const listed = await timed('GET', '/v1/subscribers');
    expect(listed.status).toBe(200);
    expect(listed.ms).toBeLessThan(2_000);
  });

  it('accepts a transactional send within 2 s: the message is durable and queued for later', async () => {
    const sent = await timed('POST', '/v1/transactional/send', {
      from: 'news@example.com',
      to: 'ada@example.com',
      subject: 'Hello',
      html: '<p>Hi</p>',
    });
    expect(sent.ms).toBeLessThan(2_000);
    expect(sent.status).toBe(202);
    expect(sent.body.status).toBe('queued');
  });

  it('accepts a campaign send within 2 s: the watchdog starts it once Redis is back', async () => {
    const campaign = await timed('POST', '/v1/campaigns', {
      name: 'Outage',
      subject: 'Hello',
      from: 'news@example.com',
      html: '<p>Hi</p>',
    });
    expect(campaign.status).toBe(201);
    const sent = await timed('POST', `/v1/campaigns/${campaign.body.id}/send`);
    expect(sent.ms).toBeLessThan(2_000);
    expect(sent).toMatchObject({ status: 202, body: { status: 'sending' } });
  });

  it('says Redis is unreachable in a few lines, never a stack trace per reconnect', () => {
    const log = output.join('');
    expect(log).toMatch(/Redis error in .*ECONNREFUSED/);
    expect(log).not.toContain('Unhandled error event');
    // A stack frame line of a JSON log (an "stack" field) or of a bare trace on stderr.
    expect(log).not.toMatch(/"stack":|\n\s+at \S+ \(/);
    // Several clients (shared, queues, workers) each fail on every reconnect; one interval's
    // report is one line for all of them.
    expect(log.match(/Redis error in/g)!.length).toBeLessThanOrEqual(3);
  });

  it('exits on SIGTERM within 10 s', async () => {
    const started = Date.now();
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
