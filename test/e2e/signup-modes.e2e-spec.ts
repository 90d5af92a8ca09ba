import { TestApi, TestEnv } from '../support/test-env';
import { DashboardAgent, PASSWORD } from './dashboard-agent';

/** Who may create an account from the dashboard: SIGNUP first (default), open, closed. */
describe('sign-up modes', () => {
  // TestEnv opens sign-up for the other suites; an empty SIGNUP is the unset default.
  const boot = async (signup: string) => {
    const env = await TestEnv.create({ SIGNUP: signup });
    return { env, api: await TestApi.start(env) };
  };
  const attempt = async (api: TestApi, email: string) => {
    const agent = new DashboardAgent(api);
    await agent.probe();
    return agent.post('/dashboard/api/signup', {
      account_name: 'Acme',
      name: 'Ada',
      email,
      password: PASSWORD,
    });
  };

  it('first (the default): the first person gets in, nobody after, even with a taken email', async () => {
    const { env, api } = await boot('');
    expect(env.config.signup).toBe('first');
    try {
      const [a, b] = await Promise.all([
        attempt(api, 'first@example.test'),
        attempt(api, 'second@example.test'),
      ]);
      // Two at once on an empty installation: exactly one becomes the first account.
      expect([a.status, b.status].sort()).toEqual([201, 403]);
      const later = await attempt(api, 'third@example.test');
      expect(later.status).toBe(403);
      expect(later.body.error).toMatchObject({ code: 'insufficient_scope', details: [] });
      expect(later.body.error.message).toMatch(/Sign-up is closed/);
      // A taken email gets the same answer as a new one: nothing tells who has an account.
      const taken = await attempt(
        api,
        a.status === 201 ? 'first@example.test' : 'second@example.test',
      );
      expect(taken.status).toBe(403);
      expect(taken.body).toEqual(later.body);
      const accounts = await env.sql<{ n: string }>('SELECT count(*)::text AS n FROM accounts');
      expect(accounts[0].n).toBe('1');
    } finally {
      await api.close();
      await env.dispose();
    }
  });

  it('open: anyone can create an account', async () => {
    const { env, api } = await boot('open');
    try {
      expect((await attempt(api, 'one@example.test')).status).toBe(201);
      expect((await attempt(api, 'two@example.test')).status).toBe(201);
    } finally {
      await api.close();
      await env.dispose();
    }
  });

  it('closed: nobody, not even the first', async () => {
    const { env, api } = await boot('closed');
    try {
      const refused = await attempt(api, 'one@example.test');
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/Sign-up is closed/);
      const accounts = await env.sql<{ n: string }>('SELECT count(*)::text AS n FROM accounts');
      expect(accounts[0].n).toBe('0');
    } finally {
      await api.close();
      await env.dispose();
    }
  });
});
