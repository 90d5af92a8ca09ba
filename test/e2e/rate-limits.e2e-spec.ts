import request, { Response } from 'supertest';
import { liveCounters } from '../support/store-counters';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const WINDOW_SECONDS = 2;
const LIMIT = 6;

function expectLimitHeaders(response: Response, limit: number) {
  expect(response.headers['ratelimit-limit']).toBe(String(limit));
  expect(Number(response.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
  expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
  expect(Number(response.headers['ratelimit-reset'])).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe('rate limits', () => {
  let env: TestEnv;
  let first: TestApi;
  let second: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create({
      RATE_LIMIT: String(LIMIT),
      RATE_LIMIT_SEND: '2',
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_BURST_FACTOR: '0',
    });
    // Two API processes' worth of app, one Redis prefix: the count must be shared.
    [first, second] = await Promise.all([TestApi.start(env), TestApi.start(env)]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await env?.dispose();
  });

  it('shares one limit across API processes, answers 429 past it, and recovers', async () => {
    const { auth, keyId } = await first.tenant();
    const apps = [first, second];
    const responses: Response[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const app = apps[i % 2];
      responses.push(await request(app.server).get('/v1/subscribers').set('Authorization', auth));
    }
    expect(responses.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    responses.forEach((r) => expectLimitHeaders(r, LIMIT));
    expect(responses.map((r) => Number(r.headers['ratelimit-remaining']))).toEqual([
      5, 4, 3, 2, 1, 0,
    ]);

    const limited = await request(second.server).get('/v1/subscribers').set('Authorization', auth);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: { code: 'rate_limited', message: expect.any(String), details: [] },
    });
    expectLimitHeaders(limited, LIMIT);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);

    // The counters live in the shared store (under QUEUE_PREFIX on Redis, like every key).
    const counter = `rl:general:${keyId}`;
    expect(await liveCounters(env, 'rl:general:')).toContain(counter);
    // The window is over when this key's counter expires (the store drops it at the window's
    // end): wait for exactly that, not for a guess at the clock.
    await waitFor(async () => !(await liveCounters(env, counter)).includes(counter), {
      timeoutMs: (WINDOW_SECONDS + 2) * 1000,
    });

    const recovered = await request(first.server).get('/v1/subscribers').set('Authorization', auth);
    expect(recovered.status).toBe(200);
    expect(recovered.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts bad keys against the address, never against a key’s quota', async () => {
    const { auth } = await first.tenant();
    const wrong = `${auth.slice(0, -1)}${auth.endsWith('A') ? 'B' : 'A'}`;
    for (let i = 0; i < LIMIT + 2; i++) {
      const refused = await request(first.server)
        .get('/v1/subscribers')
        .set('Authorization', wrong);
      expect(refused.status).toBe(401);
      expect(refused.headers['ratelimit-limit']).toBe(String(env.config.rateLimits.anonymous));
    }
    const ok = await request(first.server).get('/v1/subscribers').set('Authorization', auth);
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts each API key on its own', async () => {
    const { accountId, auth } = await first.tenant();
    const other = `Bearer ${(await first.key(accountId)).key}`;
    for (let i = 0; i < LIMIT; i++) {
      await request(first.server).get('/v1/subscribers').set('Authorization', auth).expect(200);
    }
    await request(first.server).get('/v1/subscribers').set('Authorization', auth).expect(429);
    await request(first.server).get('/v1/subscribers').set('Authorization', other).expect(200);
  });

  it('applies an account’s own limit when it has one', async () => {
    const accountId = await first.account('Small');
    await env.sql('UPDATE accounts SET rate_limit = 2 WHERE id = $1', [accountId]);
    const auth = `Bearer ${(await first.key(accountId)).key}`;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await request(second.server)
        .get('/v1/subscribers')
        .set('Authorization', auth);
      expect(response.headers['ratelimit-limit']).toBe('2');
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
  it('gives sends their own, tighter budget', async () => {
    const { auth } = await first.tenant();
    // Counted before the body is validated: even refused sends spend the send budget.
    const send = () =>
      request(first.server).post('/v1/transactional/send').set('Authorization', auth).send({});
    const statuses = [(await send()).status, (await send()).status];
    expect(statuses).toEqual([400, 400]);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit-limit']).toBe('2');
    // The general budget is untouched by sends.
    const read = await request(first.server).get('/v1/subscribers').set('Authorization', auth);
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });
});

describe('rate limit bursts', () => {
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create({
      RATE_LIMIT: '3',
      RATE_LIMIT_WINDOW_SECONDS: '5',
      RATE_LIMIT_BURST_FACTOR: '1',
      RATE_LIMIT_BURST_WINDOW_SECONDS: '20',
    });
    api = await TestApi.start(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  it('lets a key draw on its burst reserve once the window is spent', async () => {
    const { auth } = await api.tenant();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (await request(api.server).get('/v1/subscribers').set('Authorization', auth)).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });
});
