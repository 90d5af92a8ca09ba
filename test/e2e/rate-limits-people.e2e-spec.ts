import request from 'supertest';
import { UsersService } from '../../src/dashboard/people/users.service';
import { SESSION_COOKIE } from '../../src/dashboard/sessions/cookies';
import { SessionsService } from '../../src/dashboard/sessions/sessions.service';
import { TestApi, TestEnv } from '../support/test-env';
import { PASSWORD } from './dashboard-agent';

const ANONYMOUS = 4;
const PER_PERSON = 8;

/** The dashboard and public pages: per person when signed in, per client address otherwise. */
describe('rate limits without an API key', () => {
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create({
      RATE_LIMIT: String(PER_PERSON),
      RATE_LIMIT_ANONYMOUS: String(ANONYMOUS),
      // A long window: nothing resets while a test counts.
      RATE_LIMIT_WINDOW_SECONDS: '600',
      RATE_LIMIT_BURST_FACTOR: '0',
    });
    api = await TestApi.start(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  it('counts signed-out requests by address and refuses past the limit, before any work', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < ANONYMOUS + 2; i++) {
      const response = await request(api.server)
        .post('/dashboard/api/signin')
        .send({ email: `nobody-${i}@example.test`, password: 'x'.repeat(20) });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.body.error.code).toBe('rate_limited');
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      } else {
        expect(response.headers['ratelimit-limit']).toBe(String(ANONYMOUS));
      }
    }
    // The first four are answered on their merits (no session, no CSRF token: 403); then 429.
    expect(statuses.slice(0, ANONYMOUS).every((status) => status !== 429)).toBe(true);
    expect(statuses.slice(ANONYMOUS)).toEqual([429, 429]);
    // The public unsubscribe page shares the address's budget; the tracking pixel and health
    // (fetched by mail proxies and monitors) do not.
    expect((await request(api.server).get('/unsubscribe/not-a-token')).status).toBe(429);
    expect((await request(api.server).get('/health')).status).toBe(200);
    expect((await request(api.server).get('/t/open/not-a-token')).status).not.toBe(429);
  });

  it('gives each signed-in person a budget of their own', async () => {
    const { accountId } = await api.tenant();
    const users = api.app.get(UsersService);
    const sessions = api.app.get(SessionsService);
    // Signing in is an anonymous request, and this address's budget is spent by now: open the
    // sessions the way the sign-in route does.
    const cookieFor = async (email: string) => {
      const user = await users.createForAccount(accountId, email, PASSWORD);
      const { token } = await sessions.start(user);
      return `${SESSION_COOKIE}=${token}`;
    };
    const count = async (cookie: string, n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) {
        statuses.push(
          (await request(api.server).get('/dashboard/api/subscribers').set('Cookie', cookie))
            .status,
        );
      }
      return statuses;
    };
    const one = await cookieFor('one@example.test');
    const two = await cookieFor('two@example.test');
    expect(await count(one, PER_PERSON + 1)).toEqual([...Array(PER_PERSON).fill(200), 429]);
    expect(await count(two, 1)).toEqual([200]);
  });
});
