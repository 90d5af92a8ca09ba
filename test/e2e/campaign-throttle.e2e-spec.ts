import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import request from 'supertest';
import { QUEUES } from '../../src/platform/queue/queue.module';
import { waitUntilSent } from '../support/campaign-fixtures';
import { Tenant } from '../support/factories';
import { processEnv, ROOT } from '../support/processes';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

interface Progress {
  recipients: number;
  sent: number;
  expected_finish_at: string;
}

/** SEND_RATE_PER_MINUTE of every process here: 20 messages a second per account. */
const ACCOUNT_RATE = 1200;

/**
 * Send rates across processes: the API without workers, and two worker processes that share
 * nothing but PostgreSQL and Redis. A campaign's rate_per_minute and the account's
 * SEND_RATE_PER_MINUTE hold as a steady pace whichever worker sends (`npm run build` first:
 * the workers run dist/worker.js).
 */
describe('send throttling across two worker processes', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  const workers: ChildProcess[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    sink = await SmtpSink.start({ keepBodies: false });
    const settings = {
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      SEND_RATE_PER_MINUTE: String(ACCOUNT_RATE),
    };
    env = await TestEnv.create({ ...settings, RATE_LIMIT: '100000', RATE_LIMIT_SEND: '100000' });
    api = await TestApi.start(env, { workers: false });
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, ['dist/worker.js'], {
        cwd: ROOT,
        env: processEnv(env, settings),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
      workers.push(child);
    }
    // Both are connected to the delivery queue before anything is sent.
    const delivery = api.app.get<Queue>(getQueueToken(QUEUES.campaignDelivery));
    await waitFor(async () => (await delivery.getWorkers()).length >= 2, {
      timeoutMs: 45_000,
      message: () => `the workers did not start\n${logs.join('')}`,
    });
  });
  afterAll(async () => {
    for (const worker of workers) {
      if (worker.exitCode === null && worker.signalCode === null) {
        worker.kill('SIGTERM');
        await once(worker, 'exit');
      }
    }
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const campaign = async (tenant: Tenant, body: object = {}) => {
    const created = await request(api.server)
      .post('/v1/campaigns')
      .set('Authorization', tenant.auth)
      .send({ name: 'Paced', subject: 'Hi', from: 'news@acme.test', text: 'Hello', ...body })
      .expect(201);
    return created.body.id as string;
  };
  const send = (tenant: Tenant, id: string) =>
    request(api.server)
      .post(`/v1/campaigns/${id}/send`)
      .set('Authorization', tenant.auth)
      .expect(202);
  /**
   * How many messages a domain received, and how long the campaign took: from the send call
   * to the last message (first to last message as well, for the record: the first message
   * also waits for a new SMTP connection, so that span is a little shorter).
   */
  const span = (domain: string, sentAt: number) => {
    const times = sink.messages
      .filter((m) => m.to[0].endsWith(`@${domain}`))
      .map((m) => m.receivedAt);
    const last = Math.max(...times);
    return { count: times.length, ms: last - sentAt, firstToLast: last - Math.min(...times) };
  };

  it('sends a 600/minute campaign at that pace (≥ 0.9 of the expected time), with its expected finish', async () => {
    const domain = 'six-hundred.test';
    const audience = 150;
    const tenant = await api.tenant('Six hundred');
    await api.make.subscribers(tenant.accountId, audience, { domain });
    const id = await campaign(tenant, { rate_per_minute: 600 });
    const started = Date.now();
    await send(tenant, id);

    // Mid-send, the progress says when it will be done: what is left at 10 a second.
    const midway = await waitFor(
      async () => {
        const read = await request(api.server)
          .get(`/v1/campaigns/${id}`)
          .set('Authorization', tenant.auth)
          .expect(200);
        const body = read.body as { progress: Progress };
        return body.progress.sent >= 30 ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const left = midway.progress.recipients - midway.progress.sent;
    const promised = Date.parse(midway.progress.expected_finish_at) - Date.now();
    expect(Math.abs(promised - left * 100)).toBeLessThan(2000);

    await waitUntilSent(api.server, tenant.auth, id, 60_000);
    const expectedMs = (audience / 600) * 60_000;
    const { count, ms, firstToLast } = span(domain, started);
    expect(count).toBe(audience);
    console.log(
      `600/min campaign, ${audience} recipients, two workers: send to last message ${ms} ms, expected ${expectedMs} ms (${(ms / expectedMs).toFixed(3)} of it); first to last message ${firstToLast} ms`,
    );
    expect(ms).toBeGreaterThanOrEqual(0.9 * expectedMs);
    // A pace, not a crawl: well within twice the expected time.
    expect(ms).toBeLessThan(2 * expectedMs);
  });

  it('holds the account to SEND_RATE_PER_MINUTE over six campaigns at once, whichever worker sends', async () => {
    // Six delivery jobs, more than one worker process runs at once (4): both take part.
    const domain = 'account-rate.test';
    const campaigns = 6;
    const each = 50;
    const tenant = await api.tenant('Account rate');
    const people = await api.make.subscribers(tenant.accountId, campaigns * each, { domain });
    const segmentIds: string[] = [];
    for (let c = 0; c < campaigns; c++) {
      const segment = await api.make.segment(tenant.accountId, {
        field: 'email',
        op: 'in',
        value: people.slice(c * each, (c + 1) * each).map((p) => p.email),
      });
      segmentIds.push(segment.id);
    }
    const ids: string[] = [];
    for (const segmentId of segmentIds) ids.push(await campaign(tenant, { segment_id: segmentId }));
    const started = Date.now();
    await Promise.all(ids.map((id) => send(tenant, id)));
    for (const id of ids) await waitUntilSent(api.server, tenant.auth, id, 60_000);

    const expectedMs = ((campaigns * each) / ACCOUNT_RATE) * 60_000;
    const { count, ms, firstToLast } = span(domain, started);
    expect(count).toBe(campaigns * each);
    console.log(
      `SEND_RATE_PER_MINUTE=${ACCOUNT_RATE}, ${campaigns} campaigns of ${each}, two workers: send to last message ${ms} ms, expected ${expectedMs} ms (${(ms / expectedMs).toFixed(3)} of it); first to last message ${firstToLast} ms`,
    );
    expect(ms).toBeGreaterThanOrEqual(0.9 * expectedMs);
    expect(ms).toBeLessThan(2 * expectedMs);
  });
});
