import request from 'supertest';
import { SCOPES } from '../../src/auth/scopes';
import { createHmac } from 'node:crypto';
import { UsersService } from '../../src/dashboard/people/users.service';
import { FAILURES_PER_EMAIL_AND_IP } from '../../src/dashboard/sessions/login-throttle';
import { TestApi, TestEnv } from '../support/test-env';
import { DashboardAgent, PASSWORD } from './dashboard-agent';

/**
 * The dashboard's backend over HTTP: people and sessions, CSRF, sign-in
 * throttling, and API keys issued and revoked through it. The browser suite
 * (test/browser) drives the same API from the real pages.
 */
describe('dashboard API: people, sessions, CSRF, throttling, keys', () => {
  let env: TestEnv;
  let api: TestApi;
  let owner: DashboardAgent;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    owner = new DashboardAgent(api);
    await owner.signUp('owner@acme.test', 'Acme');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const cookieOf = (response: request.Response, name: string) =>
    ([] as string[])
      .concat(response.headers['set-cookie'] ?? [])
      .find((cookie) => cookie.startsWith(`${name}=`));

  describe('sign-up and sessions', () => {
    it('answers a signed-out probe with no user, a CSRF token and a visitor cookie', async () => {
      const response = await request(api.server).get('/dashboard/api/session').expect(200);
      expect(response.body).toEqual({ user: null, account: null, csrf_token: expect.any(String) });
      expect(cookieOf(response, 'herald_visitor')).toMatch(
        /^herald_visitor=[\w-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax$/,
      );
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('signs up: an account and its owner, a session cookie, only hashes stored', async () => {
      const agent = new DashboardAgent(api);
      const response = await agent.signUp('Founder@Example.test', 'Founders Ltd');
      expect(response.body).toMatchObject({
        user: { email: 'Founder@Example.test', role: 'owner' },
        account: { name: 'Founders Ltd' },
        csrf_token: expect.any(String),
      });
      const cookie = cookieOf(response, 'herald_session')!;
      // Attributes in any order: their order carries no meaning, and the cookie library picks it.
      expect(cookie.split('; ').slice(1).sort()).toEqual([
        'HttpOnly',
        'Max-Age=2592000',
        'Path=/dashboard',
        'SameSite=Lax',
      ]);
      expect(cookie).not.toContain('Secure'); // plain http here; Secure when served over https
      const token = /^herald_session=([\w-]+);/.exec(cookie)![1];

      const [user] = await env.sql<{ password_hash: string; account_id: string }>(
        `SELECT password_hash, account_id FROM users WHERE email_normalized = 'founder@example.test'`,
      );
      expect(user.password_hash).toMatch(/^\$2[aby]\$12\$/);
      expect(user.password_hash).not.toContain(PASSWORD);
      const sessions = await env.sql<{ token_hash: string }>(
        'SELECT token_hash FROM sessions WHERE account_id = $1',
        [user.account_id],
      );
      expect(sessions).toHaveLength(1);
      expect(sessions[0].token_hash).not.toBe(token);
      expect(sessions[0].token_hash).toBe(
        createHmac('sha256', env.config.secret)
          .update('dashboard-session')
          .update('\0')
          .update(token)
          .digest('base64url'),
      );

      const probe = await agent.probe();
      expect(probe.body.user.email).toBe('Founder@Example.test');
    });

    it('refuses a second sign-up with the same email, and a short password', async () => {
      const agent = new DashboardAgent(api);
      await agent.probe();
      const taken = await agent.post('/dashboard/api/signup', {
        account_name: 'Copycat',
        email: 'OWNER@acme.test',
        password: PASSWORD,
      });
      expect(taken.status).toBe(422);
      expect(taken.body.error.details).toEqual([
        expect.objectContaining({ field: 'email', code: 'already_exists' }),
      ]);
      const short = await agent.post('/dashboard/api/signup', {
        account_name: 'Shorty',
        email: 'short@example.test',
        password: 'tooshort',
      });
      expect(short.status).toBe(422);
      expect(short.body.error.details).toEqual([
        expect.objectContaining({ field: 'password', code: 'too_short' }),
      ]);
      // Twelve characters is the floor: eleven is still too short.
      const eleven = await agent.post('/dashboard/api/signup', {
        account_name: 'Shorty',
        email: 'short@example.test',
        password: 'x'.repeat(11),
      });
      expect(eleven.status).toBe(422);
      expect(eleven.body.error.details).toEqual([
        expect.objectContaining({ field: 'password', code: 'too_short' }),
      ]);
    });

    it('keeps every dashboard API route closed without a session', async () => {
      const anonymous = request(api.server);
      for (const path of [
        '/dashboard/api/keys',
        '/dashboard/api/subscribers',
        '/dashboard/api/audit',
      ]) {
        const response = await anonymous.get(path);
        expect(response.status).toBe(401);
        expect(response.body.error).toMatchObject({ code: 'invalid_credential' });
      }
    });

    it('never takes an API key in place of a session, and /v1 never issues keys', async () => {
      const accountId = await api.account('Keyed');
      const { key } = await api.key(accountId);
      const withKey = await request(api.server)
        .get('/dashboard/api/keys')
        .set('Authorization', `Bearer ${key}`);
      expect(withKey.status).toBe(401);
      const create = await request(api.server)
        .post('/v1/keys')
        .set('Authorization', `Bearer ${key}`)
        .send({ name: 'x', scopes: ['stats:read'] });
      expect(create.status).toBe(404);
    });

    it('signs out: the session row goes, and replaying its cookie is refused', async () => {
      const agent = new DashboardAgent(api);
      await api.app
        .get(UsersService)
        .createForAccount((await owner.probe()).body.account.id, 'leaver@acme.test', PASSWORD);
      const signIn = await agent.signIn('leaver@acme.test');
      expect(signIn.status).toBe(200);
      const stolen = /^(herald_session=[\w-]+);/.exec(cookieOf(signIn, 'herald_session')!)![1];

      const out = await agent.post('/dashboard/api/signout');
      expect(out.status).toBe(200);
      expect(cookieOf(out, 'herald_session')).toMatch(/^herald_session=; .*Max-Age=0/);
      expect((await agent.get('/dashboard/api/keys')).status).toBe(401);
      const replay = await request(api.server).get('/dashboard/api/keys').set('Cookie', stolen);
      expect(replay.status).toBe(401);
    });
  });

  describe('CSRF', () => {
    const body = { name: 'csrf probe', scopes: ['stats:read'] };

    it('refuses a write without the token, with a wrong one, or with another session’s', async () => {
      const missing = await owner.http.post('/dashboard/api/keys').send(body);
      expect(missing.status).toBe(403);
      expect(missing.body.error.message).toMatch(/cross-site request forgery/);

      const wrong = await owner.http
        .post('/dashboard/api/keys')
        .set('X-CSRF-Token', 'x'.repeat(43))
        .send(body);
      expect(wrong.status).toBe(403);

      const other = new DashboardAgent(api);
      await other.signIn('founder@example.test');
      const foreign = await owner.http
        .post('/dashboard/api/keys')
        .set('X-CSRF-Token', other.csrf)
        .send(body);
      expect(foreign.status).toBe(403);
    });

    it('refuses a write from another origin even with the right token', async () => {
      await owner.probe();
      const origin = await owner
        .post('/dashboard/api/keys', body)
        .set('Origin', 'https://evil.example');
      expect(origin.status).toBe(403);
      const referer = await owner
        .post('/dashboard/api/keys', body)
        .set('Referer', 'https://evil.example/page');
      expect(referer.status).toBe(403);
      const fetchSite = await owner
        .post('/dashboard/api/keys', body)
        .set('Sec-Fetch-Site', 'cross-site');
      expect(fetchSite.status).toBe(403);
      expect(await env.sql(`SELECT 1 FROM api_keys WHERE name = 'csrf probe'`)).toEqual([]);
    });

    it('accepts the token from the dashboard’s own origin (PUBLIC_URL)', async () => {
      const response = await owner
        .post('/dashboard/api/keys', body)
        .set('Origin', new URL(env.config.publicUrl).origin);
      expect(response.status).toBe(201);
    });

    it('guards sign-in too (login CSRF): the token is bound to the visitor cookie', async () => {
      const cold = await request(api.server)
        .post('/dashboard/api/signin')
        .send({ email: 'owner@acme.test', password: PASSWORD });
      expect(cold.status).toBe(403);

      const visitor = new DashboardAgent(api);
      await visitor.probe();
      const elsewhere = new DashboardAgent(api);
      await elsewhere.probe();
      const swapped = await visitor.http
        .post('/dashboard/api/signin')
        .set('X-CSRF-Token', elsewhere.csrf)
        .send({ email: 'owner@acme.test', password: PASSWORD });
      expect(swapped.status).toBe(403);
    });
  });

  describe('sign-in throttling', () => {
    beforeAll(async () => {
      const accountId = (await owner.probe()).body.account.id;
      const users = api.app.get(UsersService);
      await users.createForAccount(accountId, 'target@acme.test', PASSWORD);
      await users.createForAccount(accountId, 'bystander@acme.test', PASSWORD);
      await users.createForAccount(accountId, 'typo@acme.test', PASSWORD);
    });

    it('answers 429 after repeated failures for one email and address, even to the right password', async () => {
      const agent = new DashboardAgent(api);
      for (let attempt = 0; attempt < FAILURES_PER_EMAIL_AND_IP; attempt++) {
        const response = await agent.signIn('target@acme.test', 'wrong password!!');
        expect(response.status).toBe(401);
        expect(response.body.error.message).toBe('The email or password is incorrect.');
      }
      const blocked = await agent.signIn('target@acme.test');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('rate_limited');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);

      // Another person signing in from the same address is not locked out.
      expect((await agent.signIn('bystander@acme.test')).status).toBe(200);
    });

    it('forgets earlier failures once the right password gets through', async () => {
      const agent = new DashboardAgent(api);
      for (let attempt = 0; attempt < FAILURES_PER_EMAIL_AND_IP - 1; attempt++) {
        expect((await agent.signIn('typo@acme.test', 'wrong password!!')).status).toBe(401);
      }
      expect((await agent.signIn('typo@acme.test')).status).toBe(200);
      for (let attempt = 0; attempt < FAILURES_PER_EMAIL_AND_IP - 1; attempt++) {
        expect((await agent.signIn('typo@acme.test', 'wrong password!!')).status).toBe(401);
      }
      expect((await agent.signIn('typo@acme.test')).status).toBe(200);
    });

    it('answers an unknown email exactly like a wrong password', async () => {
      const agent = new DashboardAgent(api);
      const response = await agent.signIn('nobody@acme.test');
      expect(response.status).toBe(401);
      expect(response.body.error.message).toBe('The email or password is incorrect.');
    });
  });

  describe('API keys', () => {
    let created: { id: string; secret: string; redacted: string };

    it('lists every scope, grouped by resource', async () => {
      const response = await owner.get('/dashboard/api/scopes').expect(200);
      const groups = response.body.data as { resource: string; scopes: { scope: string }[] }[];
      const scopes = groups.flatMap((group) => group.scopes.map((item) => item.scope));
      expect(scopes).toEqual([...SCOPES]);
      expect(groups.map((group) => group.resource)).toEqual([
        'subscribers',
        'segments',
        'campaigns',
        'templates',
        'transactional',
        'stats',
        'webhooks',
        'domains',
        'automations',
        'events',
        'messages',
      ]);
    });

    it('creates a key with two scopes: the secret once, a redacted form afterwards', async () => {
      await owner.probe();
      const response = await owner.post('/dashboard/api/keys', {
        name: 'Storefront',
        scopes: ['subscribers:read', 'subscribers:write'],
      });
      expect(response.status).toBe(201);
      expect(response.headers['cache-control']).toBe('no-store');
      created = response.body;
      expect(created.secret).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
      expect(created.redacted).toBe(`sk_live_…${created.secret.slice(-4)}`);

      const list = await owner.get('/dashboard/api/keys').expect(200);
      expect(JSON.stringify(list.body)).not.toContain(created.secret);
      expect(list.body.data).toContainEqual(
        expect.objectContaining({
          id: created.id,
          name: 'Storefront',
          redacted: created.redacted,
          scopes: ['subscribers:read', 'subscribers:write'],
          status: 'active',
          last_used_at: null,
        }),
      );
      const [row] = await env.sql<{ secret_hash: string }>(
        'SELECT secret_hash FROM api_keys WHERE id = $1',
        [created.id],
      );
      expect(row.secret_hash).not.toContain(created.secret);
    });

    it('the key works on /v1 within its scopes, 403 outside them', async () => {
      const auth = `Bearer ${created.secret}`;
      await request(api.server).get('/v1/subscribers').set('Authorization', auth).expect(200);
      const refused = await request(api.server).get('/v1/campaigns').set('Authorization', auth);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      const list = await owner.get('/dashboard/api/keys');
      const keys = list.body.data as { id: string; last_used_at: string | null }[];
      expect(keys.find((item) => item.id === created.id)?.last_used_at).not.toBeNull();
    });

    it('refuses unknown scopes, no scopes and no name with 422', async () => {
      for (const body of [
        { name: 'x', scopes: ['subscribers:read', 'keys:create'] },
        { name: 'x', scopes: [] },
        { name: '', scopes: ['stats:read'] },
      ]) {
        const response = await owner.post('/dashboard/api/keys', body);
        expect(response.status).toBe(422);
      }
    });

    it('lets no other account revoke the key', async () => {
      const stranger = new DashboardAgent(api);
      await stranger.signIn('founder@example.test');
      const response = await stranger.post(`/dashboard/api/keys/${created.id}/revoke`);
      expect(response.status).toBe(404);
      const [row] = await env.sql<{ status: string }>('SELECT status FROM api_keys WHERE id = $1', [
        created.id,
      ]);
      expect(row.status).toBe('active');
    });

    it('revokes the key: /v1 answers 401, and the audit log says who did it', async () => {
      const revoked = await owner.post(`/dashboard/api/keys/${created.id}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: created.id, status: 'revoked' });
      const refused = await request(api.server)
        .get('/v1/subscribers')
        .set('Authorization', `Bearer ${created.secret}`);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('invalid_credential');
      // Revoking again changes nothing.
      expect((await owner.post(`/dashboard/api/keys/${created.id}/revoke`)).status).toBe(200);

      const audit = await owner.get('/dashboard/api/audit').expect(200);
      const events = audit.body.data as { action: string }[];
      expect(events.filter((event) => event.action === 'api_key.revoked')).toHaveLength(1);
      expect(audit.body.data[0]).toMatchObject({
        action: 'api_key.revoked',
        actor: { type: 'user', email: 'owner@acme.test' },
        metadata: { key: `Storefront (${created.redacted})` },
      });
    });
  });
});
