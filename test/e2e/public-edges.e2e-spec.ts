import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createHttpApp } from '../../src/http-app';
import { loadConfig } from '../../src/platform/config/config';
import { TestEnv } from '../support/test-env';

const MAIL_AGENT_LIMIT = 5;
const trustProxyOf = (value: string) =>
  loadConfig({ HERALD_SECRET: 'x'.repeat(40), TRUST_PROXY: value }).trustProxy;

/**
 * Routes nobody signs in for are limited per client address, tracking links, the one-click
 * unsubscribe and provider webhooks included (on a larger budget: mail infrastructure sends
 * many people's requests from few addresses). TRUST_PROXY decides what the client address is.
 * Every app here shares one Redis prefix, so a budget spent in one is spent in all.
 */
describe('per-address limits at the public edges', () => {
  let env: TestEnv;
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    env = await TestEnv.create({
      RATE_LIMIT_MAIL_AGENTS: String(MAIL_AGENT_LIMIT),
      // One long window and no burst reserve: the counts cannot reset during the test.
      RATE_LIMIT_WINDOW_SECONDS: '600',
      RATE_LIMIT_BURST_WINDOW_SECONDS: '600',
      RATE_LIMIT_BURST_FACTOR: '0',
    });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await env?.dispose();
  });

  /** An API-only app on the env's database and Redis, with TRUST_PROXY as given. */
  async function app(trustProxy?: string): Promise<NestFastifyApplication> {
    const config =
      trustProxy === undefined
        ? env.config
        : { ...env.config, trustProxy: trustProxyOf(trustProxy) };
    const created = await createHttpApp(config, { workers: false });
    apps.push(created);
    return created;
  }

  const open = (server: NestFastifyApplication, forwardedFor?: string) => {
    const hit = request(server.getHttpServer()).get('/t/open/not-a-token');
    return forwardedFor === undefined ? hit : hit.set('X-Forwarded-For', forwardedFor);
  };
  /** A request the limit lets through (the bad token then answers 404). */
  const passes = async (server: NestFastifyApplication, forwardedFor?: string) => {
    const response = await open(server, forwardedFor);
    expect(response.status).toBe(404);
    return response;
  };
  const refused = async (server: NestFastifyApplication, forwardedFor?: string) => {
    const response = await open(server, forwardedFor);
    expect(response.status).toBe(429);
    return response;
  };
  const remaining = (response: request.Response) => Number(response.headers['ratelimit-remaining']);

  it('limits tracking, the one-click unsubscribe and provider webhooks by the socket address, ignoring X-Forwarded-For', async () => {
    const server = await app();
    const hits = [
      () => open(server, '198.51.100.1'),
      () =>
        request(server.getHttpServer())
          .post('/unsubscribe/not-a-token')
          .send('List-Unsubscribe=One-Click'),
      () => request(server.getHttpServer()).post('/webhooks/mailgun').send({}),
      () => open(server, '198.51.100.2'),
      () => open(server),
    ];
    for (const hit of hits) {
      const response = await hit();
      expect(response.status).not.toBe(429);
    }
    const refused = await open(server, '198.51.100.3');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: { code: 'rate_limited', message: expect.any(String), details: [] },
    });
    expect(refused.headers['retry-after']).toBeDefined();
    const webhook = await request(server.getHttpServer()).post('/webhooks/sendgrid').send([]);
    expect(webhook.status).toBe(429);
  });

  it('TRUST_PROXY=1 counts the address the proxy in front reports', async () => {
    const server = await app('1');
    // 127.0.0.1, the proxy, spent its own budget above; each client has its own.
    const first = await passes(server, '203.0.113.1');
    expect(remaining(first)).toBe(MAIL_AGENT_LIMIT - 1);
    for (let index = 1; index < MAIL_AGENT_LIMIT; index++) {
      await passes(server, '203.0.113.1');
    }
    await refused(server, '203.0.113.1');
    const other = await passes(server, '203.0.113.2');
    expect(remaining(other)).toBe(MAIL_AGENT_LIMIT - 1);
    // The last hop is the one the proxy saw; what the client put before it is not believed.
    const spoofed = await passes(server, '203.0.113.2, 203.0.113.3');
    expect(remaining(spoofed)).toBe(MAIL_AGENT_LIMIT - 1);
    // Without the header the proxy itself is the client (and has nothing left).
    await refused(server);
  });

  it('TRUST_PROXY with CIDRs believes X-Forwarded-For only from those proxies', async () => {
    const untrusted = await app('10.0.0.0/8, 192.168.0.0/16');
    // The socket (127.0.0.1) is no listed proxy: its header is ignored, its budget is spent.
    await refused(untrusted, '203.0.113.9');
    const trusted = await app('10.0.0.0/8, 127.0.0.0/8, ::1');
    const response = await passes(trusted, '203.0.113.9');
    expect(remaining(response)).toBe(MAIL_AGENT_LIMIT - 1);
    // Proxies in the chain are skipped; the first address from the right that is none counts.
    const chained = await passes(trusted, '6.6.6.6, 203.0.113.10, 10.1.2.3');
    expect(remaining(chained)).toBe(MAIL_AGENT_LIMIT - 1);
    await passes(trusted, '203.0.113.10');
    expect(remaining(await passes(trusted, '7.7.7.7, 203.0.113.10'))).toBe(MAIL_AGENT_LIMIT - 3);
  });
});
