import request from 'supertest';
import { PG_POOL_SIZE } from '../../src/platform/settings';
import { TestApi, TestEnv } from '../support/test-env';

/** Requests in flight at once: four times what the database pool holds. */
const IN_FLIGHT = 4 * PG_POOL_SIZE;
/** What the contract promises every answer under load, whatever the pool is doing. */
const ANSWER_WITHIN_MS = 5_000;

type Call = (auth: string, n: number) => request.Test;

/**
 * Every write endpoint with far more requests in flight than the pool has connections, each
 * burst on a new account (so every per-account cache is cold and each request looks its
 * account's settings up for itself). A request that holds a connection while it waits for a
 * second one deadlocks the pool once enough of them do so at once: they time out, then fail
 * with 500s. Here every answer comes in bounded time and none is a 5xx.
 */
describe('write endpoints with four times the pool in flight on a new account', () => {
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create({
      ALLOW_UNVERIFIED_FROM: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
    });
    api = await TestApi.start(env, { workers: false });
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const post = (path: string, body: (n: number) => object): Call => {
    return (auth, n) => request(api.server).post(path).set('Authorization', auth).send(body(n));
  };

  /**
   * A subscriber and a campaign of the account, for the calls that need one: written to the
   * database directly, so no request has warmed a cache of the account before the burst.
   */
  async function fixtures(accountId: string) {
    const subscriber = await api.make.subscriber(accountId);
    const campaign = await api.make.campaign(accountId);
    return { subscriber: subscriber.id, campaign: campaign.id };
  }

  type Fixtures = Awaited<ReturnType<typeof fixtures>>;
  const endpoints: [string, (f: Fixtures) => Call][] = [
    ['POST /v1/subscribers', () => post('/v1/subscribers', (n) => ({ email: `p${n}@load.test` }))],
    [
      'POST /v1/subscribers/batch',
      () =>
        post('/v1/subscribers/batch', (n) => ({
          subscribers: [{ email: `b${n}@load.test` }, { email: `c${n}@load.test` }],
        })),
    ],
    [
      'PATCH /v1/subscribers/{id}',
      (f) => (auth, n) =>
        request(api.server)
          .patch(`/v1/subscribers/${f.subscriber}`)
          .set('Authorization', auth)
          .send({ first_name: `Name ${n}` }),
    ],
    [
      'POST /v1/templates',
      () => post('/v1/templates', (n) => ({ name: `T${n}`, subject: 'Hi', html: '<p>Hi</p>' })),
    ],
    [
      'POST /v1/segments',
      () =>
        post('/v1/segments', (n) => ({
          name: `S${n}`,
          filter: { field: 'tags', op: 'contains', value: `t${n}` },
        })),
    ],
    [
      'POST /v1/campaigns',
      () =>
        post('/v1/campaigns', (n) => ({
          name: `C${n}`,
          subject: 'Hi',
          from: 'news@acme.test',
          text: 'Hello',
        })),
    ],
    [
      'PATCH /v1/campaigns/{id}',
      (f) => (auth, n) =>
        request(api.server)
          .patch(`/v1/campaigns/${f.campaign}`)
          .set('Authorization', auth)
          .send({ name: `Renamed ${n}` }),
    ],
    [
      'POST /v1/transactional/send',
      () =>
        post('/v1/transactional/send', (n) => ({
          from: 'app@acme.test',
          to: `t${n}@load.test`,
          subject: 'Your code',
          text: `Code ${n}`,
        })),
    ],
    [
      'POST /v1/suppressions',
      () => post('/v1/suppressions', (n) => ({ email: `s${n}@load.test` })),
    ],
    [
      'POST /v1/conversions',
      (f) =>
        post('/v1/conversions', (n) => ({
          subscriber_id: f.subscriber,
          amount_cents: n,
          currency: 'EUR',
        })),
    ],
    [
      'POST /v1/webhooks',
      () =>
        post('/v1/webhooks', (n) => ({
          url: `http://127.0.0.1:9/hook-${n}`,
          events: ['subscriber.created'],
        })),
    ],
    ['POST /v1/erasures', () => post('/v1/erasures', (n) => ({ email: `e${n}@load.test` }))],
    ['POST /v1/exports', () => post('/v1/exports', () => ({}))],
    [
      'POST /v1/campaigns/{id}/duplicate',
      (f) => (auth) =>
        request(api.server)
          .post(`/v1/campaigns/${f.campaign}/duplicate`)
          .set('Authorization', auth),
    ],
  ];

  async function burst(make: (f: Fixtures) => Call, timeoutMs: number) {
    const { auth, accountId } = await api.tenant();
    const call = make(await fixtures(accountId));
    return Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, n) => {
        const started = Date.now();
        const response = await call(auth, n).timeout(timeoutMs);
        return { status: response.status, ms: Date.now() - started, body: response.body };
      }),
    );
  }

  it.each(endpoints)('%s: every answer in bounded time, none a 5xx', async (_name, make) => {
    const answers = await burst(make, 3 * ANSWER_WITHIN_MS);
    const failed = answers.filter((answer) => answer.status >= 500);
    expect(failed).toEqual([]);
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThanOrEqual(ANSWER_WITHIN_MS);
  });

  // Each answer generates a 2048-bit RSA key for the domain's DKIM record: tens of milliseconds
  // of CPU that no pool discipline can save, so on a busy machine forty of them take seconds.
  // What the burst checks here is that the pool never deadlocks: every answer, and none a 5xx.
  it('POST /v1/domains: every answer, none a 5xx', async () => {
    const answers = await burst(
      () => post('/v1/domains', (n) => ({ name: `d${n}.load.test` })),
      60_000,
    );
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(IN_FLIGHT);
  }, 120_000);
});
