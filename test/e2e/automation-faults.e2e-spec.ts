import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import request from 'supertest';
import type { Tenant } from '../support/factories';
import { processEnv, ROOT } from '../support/processes';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const PEOPLE = 400;
const KILL_AFTER = 250;

/**
 * Automations under faults, with real worker processes (`src/worker.ts`) beside an API that
 * runs none: a worker killed with SIGKILL in the middle of sending, and a wait that outlives
 * its worker and everything Herald kept in Redis.
 */
describe('automations under faults', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;
  let templateId: string;
  const workers: ChildProcess[] = [];
  const logs: string[] = [];

  const startWorker = () => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/worker.ts'], {
      cwd: ROOT,
      env: processEnv(env, { SMTP_URL: sink.url, PUBLIC_URL: 'https://herald.test' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    workers.push(child);
    return child;
  };
  const kill = async (child: ChildProcess) => {
    child.kill('SIGKILL');
    await once(child, 'exit');
  };

  beforeAll(async () => {
    sink = await SmtpSink.start({ keepBodies: false });
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      RATE_LIMIT_SEND: '1000',
    });
    api = await TestApi.start(env, { workers: false });
    tenant = await api.tenant('Faults');
    templateId = (await api.make.template(tenant.accountId)).id;
  });
  afterAll(async () => {
    for (const worker of workers) {
      if (worker.exitCode === null && worker.signalCode === null) await kill(worker);
    }
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const as = (method: 'get' | 'post', path: string) =>
    request(api.server)[method](path).set('Authorization', tenant.auth);
  const automation = async (steps: object[]) => {
    const created = await as('post', '/v1/automations').send({
      name: 'Faults',
      trigger: { type: 'subscriber_created' },
      steps,
    });
    expect(created.status).toBe(201);
    await as('post', `/v1/automations/${created.body.id}/activate`).expect(200);
    return created.body.id as string;
  };
  const runStatuses = async (id: string) => {
    const rows = await env.sql<{ status: string; n: string }>(
      'SELECT status::text, count(*) AS n FROM automation_runs WHERE automation_id = $1 GROUP BY 1',
      [id],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  };

  it('sends each step once per run across a worker killed mid-send', async () => {
    const id = await automation([
      { id: 'first', type: 'send', template_id: templateId, subject: 'First' },
      { id: 'second', type: 'send', template_id: templateId, subject: 'Second' },
    ]);
    try {
      await killMidSend(id);
    } finally {
      // The next test's subscriber must not enter this automation.
      await as('post', `/v1/automations/${id}/pause`).expect(200);
    }
  }, 300_000);

  const killMidSend = async (id: string) => {
    sink.holdAfter = KILL_AFTER;
    const first = startWorker();
    const people = await api.make.subscribers(tenant.accountId, PEOPLE, { domain: 'crash.test' });

    // Frozen: the sink took KILL_AFTER messages and the worker waits on the next ones.
    await waitFor(() => sink.messages.length >= KILL_AFTER && sink.held > 0, {
      timeoutMs: 90_000,
      message: () => `the worker never froze\n${logs.join('')}`,
    });
    // As in the campaign crash test: the kill lands once every 250 the worker got is recorded
    // (outcomes are written within ~50 ms of their 250), so what it leaves behind is claims
    // that never reached the relay; a 250 in flight at the instant of death is the campaign
    // send's bound, discussed in docs/decisions.md.
    const recorded = async () => {
      const [row] = await env.sql<{ sent: string }>(
        `SELECT count(*) AS sent FROM campaign_recipients r
           JOIN automation_step_campaigns c ON c.campaign_id = r.campaign_id
          WHERE c.automation_id = $1 AND r.status = 'sent'`,
        [id],
      );
      return Number(row.sent);
    };
    await waitFor(async () => (await recorded()) >= sink.messages.length, {
      timeoutMs: 10_000,
    }).catch(() => undefined); // asserted below, once the worker is dead
    await kill(first);
    expect(await recorded()).toBe(sink.messages.length);

    // A new worker takes the dead one's claims over once their lease has run out.
    sink.release();
    startWorker();
    let statuses: Record<string, number> = {};
    await waitFor(async () => (statuses = await runStatuses(id)).completed === PEOPLE, {
      timeoutMs: 60_000,
      message: () => JSON.stringify(statuses),
    });
    await waitFor(() => sink.messages.length >= 2 * PEOPLE, {
      timeoutMs: 120_000,
      message: () => `${sink.messages.length} messages\n${logs.join('')}`,
    });

    const received = sink.messages.map((m) => `${m.to[0]} ${m.headers.subject}`);
    const counts = new Map<string, number>();
    for (const key of received) counts.set(key, (counts.get(key) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    const expected = people.flatMap((p) => [`${p.email} First`, `${p.email} Second`]);
    expect(new Set(received)).toEqual(new Set(expected));
  };

  it('keeps a wait across a restart and the loss of everything in Redis', async () => {
    const id = await automation([
      { id: 'pause', type: 'wait', seconds: 4 },
      { id: 'later', type: 'send', template_id: templateId, subject: 'After the wait' },
    ]);
    const worker = startWorker();
    const [person] = await api.make.subscribers(tenant.accountId, 1, {
      prefix: 'patient',
      domain: 'wait.test',
    });
    await waitFor(
      async () => {
        const [run] = await env.sql<{ in_wait: boolean }>(
          'SELECT in_wait FROM automation_runs WHERE automation_id = $1',
          [id],
        );
        return run?.in_wait === true;
      },
      { timeoutMs: 30_000 },
    );
    await kill(worker);
    await env.flushRedis();

    startWorker();
    await waitFor(async () => (await runStatuses(id)).completed === 1, { timeoutMs: 60_000 });
    await waitFor(() => sink.messages.some((m) => m.to[0] === person.email), {
      timeoutMs: 30_000,
    });
    const mail = sink.messages.filter((m) => m.to[0] === person.email);
    expect(mail.map((m) => m.headers.subject)).toEqual(['After the wait']);
  }, 180_000);
});
