import parsePrometheus from 'parse-prometheus-text-format';
import request from 'supertest';
import { createHttpApp } from '../../src/http-app';
import { FaultRig, Tenant } from '../support/fault-rig';
import { freePort, waitForOk } from '../support/processes';
import { TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const TOKEN = 'metrics-token-for-the-probe-tests';
const RECIPIENTS = 30;

type Families = ReturnType<typeof parsePrometheus>;

/** What a Prometheus server would read from `url` with the token: parsed, or the status. */
async function scrape(url: string, token = TOKEN): Promise<Families> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

/** The sum of a family's samples whose labels include `labels`. */
function total(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}

/** The metric families operators are promised, as Herald calls them. */
const FAMILIES = [
  'herald_queue_jobs',
  'herald_messages_total',
  'herald_smtp_send_duration_seconds',
  'herald_http_requests_total',
  'herald_http_request_duration_seconds',
  'herald_db_pool_connections',
  'herald_db_pool_max',
  'process_cpu_seconds_total',
];

/**
 * The operator's surface on real processes: an `--api-only` API and a worker
 * with METRICS_PORT, both with METRICS_TOKEN, and `npm start`'s shape, whose /metrics carries
 * its worker child's counters.
 */
describe('probes and metrics', () => {
  let rig: FaultRig;
  let tenant: Tenant;
  let workerBase: string;

  beforeAll(async () => {
    rig = await FaultRig.start({ env: { METRICS_TOKEN: TOKEN } });
    tenant = await rig.tenant('Probed');
    const port = await freePort();
    rig.startWorker({ METRICS_PORT: String(port) });
    workerBase = `http://127.0.0.1:${port}`;
    await waitForOk(`${workerBase}/health/ready`).catch((error: Error) => {
      throw new Error(`${error.message}\n${rig.logs()}`);
    });
  }, 120_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  it('answers the probes on the API and on a worker’s metrics port', async () => {
    for (const base of [rig.base, workerBase]) {
      const live = await fetch(`${base}/health/live`);
      expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
      const ready = await fetch(`${base}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok' }]);
    }
    // GET /health stays as the contract's §1 has it.
    const health = await fetch(`${rig.base}/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('refuses /metrics without the token, in the error envelope', async () => {
    for (const base of [rig.base, workerBase]) {
      for (const authorization of [undefined, 'Bearer wrong-token-of-some-length']) {
        const response = await fetch(`${base}/metrics`, {
          headers: authorization ? { Authorization: authorization } : {},
        });
        expect(response.status).toBe(401);
        const body = (await response.json()) as { error: { code: string; details: unknown[] } };
        expect(body.error).toMatchObject({ code: 'invalid_credential', details: [] });
      }
    }
  });

  it('serves every family, parsed as Prometheus does, moving during a send', async () => {
    const before = await scrape(`${rig.base}/metrics`);
    const names = before.map((family) => family.name);
    for (const name of FAMILIES) expect(names).toContain(name);
    expect(total(before, 'herald_db_pool_max')).toBe(10);
    expect(before.find((f) => f.name === 'herald_queue_jobs')!.metrics).toContainEqual({
      labels: { queue: 'campaign-delivery', state: 'waiting' },
      value: '0',
    });

    await rig.audience(tenant.accountId, RECIPIENTS, 'probed.test');
    await rig.waitUntilSent(tenant, await rig.sendCampaign(tenant, 'Probed'), 90_000);

    // The worker counted what it sent and timed each SMTP transaction.
    const worker = await scrape(`${workerBase}/metrics`);
    expect(total(worker, 'herald_messages_total', { source: 'campaign', outcome: 'sent' })).toBe(
      RECIPIENTS,
    );
    expect(total(worker, 'herald_smtp_send_duration_seconds')).toBe(RECIPIENTS);
    // The API counted its requests by route pattern and status.
    const api = await scrape(`${rig.base}/metrics`);
    expect(
      total(api, 'herald_http_requests_total', {
        method: 'POST',
        route: '/v1/campaigns/:id/send',
        status: '202',
      }),
    ).toBe(1);
    expect(
      total(api, 'herald_http_requests_total', { route: '/v1/campaigns/:id/stats' }),
    ).toBeGreaterThan(0);
    expect(total(api, 'herald_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
  }, 120_000);

  it('shows the queue filling, and deferrals and failures by source, while mail goes out', async () => {
    const moving = await rig.tenant('Moving');
    await rig.audience(moving.accountId, RECIPIENTS, 'moving.test');
    const delivery = { queue: 'campaign-delivery', state: 'active' };
    // The relay holds every new transaction at MAIL FROM: the delivery job stays running.
    rig.sink.holdAfter = rig.sink.messages.length;
    let campaignId: string;
    try {
      campaignId = await rig.sendCampaign(moving, 'Moving');
      const during = await waitFor(
        async () => {
          const families = await scrape(`${rig.base}/metrics`);
          return total(families, 'herald_queue_jobs', delivery) > 0 ? families : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, message: () => rig.logs() },
      );
      expect(total(during, 'herald_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    } finally {
      rig.sink.release();
    }
    await rig.waitUntilSent(moving, campaignId, 90_000);
    await waitFor(
      async () => total(await scrape(`${rig.base}/metrics`), 'herald_queue_jobs', delivery) === 0,
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    // A relay refusing one address for good and another once for now.
    let deferrals = 0;
    rig.sink.verdict = (message) => {
      if (message.to.includes('refused@moving.test')) return { code: 550, message: 'no such user' };
      if (message.to.includes('later@moving.test') && deferrals++ === 0) {
        return { code: 451, message: 'try again later' };
      }
      return undefined;
    };
    try {
      for (const to of ['refused@moving.test', 'later@moving.test']) {
        const accepted = await rig.request(moving, 'POST', '/v1/transactional/send', {
          to,
          from: 'receipts@moving.test',
          subject: 'Your receipt',
          text: 'Thanks!',
        });
        expect(accepted.status).toBe(202);
      }
      const source = { source: 'transactional' };
      const worker = await waitFor(
        async () => {
          const families = await scrape(`${workerBase}/metrics`);
          const failed = total(families, 'herald_messages_total', { ...source, outcome: 'failed' });
          const deferred = total(families, 'herald_messages_total', {
            ...source,
            outcome: 'deferred',
          });
          return failed === 1 && deferred === 1 ? families : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, message: () => rig.logs() },
      );
      // The campaign's counters are the campaign's alone.
      expect(
        total(worker, 'herald_messages_total', { source: 'campaign', outcome: 'failed' }),
      ).toBe(0);
    } finally {
      rig.sink.verdict = () => undefined;
    }
  }, 180_000);

  it('adds npm start’s worker child’s counters to its /metrics', async () => {
    const all = await rig.startAllInOne();
    const other = await rig.tenant('Embedded');
    await rig.audience(other.accountId, RECIPIENTS, 'embedded.test');
    // Only the all-in-one process's workers may take this campaign's jobs.
    for (const worker of rig.workers.filter((w) => w !== all.process)) await worker.stop();
    const created = await rig.sendCampaign(other, 'Embedded');
    await rig.waitUntilSent(other, created, 90_000);
    const families = await waitFor(
      async () => {
        const parsed = await scrape(`${all.base}/metrics`);
        const sent = total(parsed, 'herald_messages_total', {
          source: 'campaign',
          outcome: 'sent',
        });
        return sent === RECIPIENTS ? parsed : undefined;
      },
      { message: () => rig.logs() },
    );
    // One pool each, summed over the parent and its child.
    expect(total(families, 'herald_db_pool_max')).toBe(20);
  }, 150_000);
});

describe('/health/ready when a store is away', () => {
  it('answers 503 naming it, while /health/live answers 200', async () => {
    const env = await TestEnv.create({ REDIS_URL: 'redis://127.0.0.1:1' });
    const app = await createHttpApp(env.config, { workers: false });
    try {
      const ready = await request(app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', database: true, redis: false });
      const live = await request(app.getHttpServer()).get('/health/live');
      expect(live.status).toBe(200);
      // Without METRICS_TOKEN, /metrics is open; a scrape never waits on the missing Redis.
      const metrics = await request(app.getHttpServer()).get('/metrics');
      expect(metrics.status).toBe(200);
      expect(parsePrometheus(metrics.text).map((f) => f.name)).toContain('herald_db_pool_max');
    } finally {
      await app.close();
      await env.dispose();
    }
  }, 60_000);
});
