import { parseAccountId } from '../../src/platform/database/account-id';
import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { ROUTE_SCOPES, Scope, SCOPES } from '../../src/auth/scopes';
import { KEY_CACHE_TTL_MS } from '../../src/auth/auth.settings';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const SOME_ID = '01900000-0000-7000-8000-000000000000';

/** Every /v1 operation the running app serves, as `METHOD /v1/path/:id`, read from OpenAPI. */
async function servedRoutes(api: TestApi): Promise<string[]> {
  const doc = await request(api.server).get('/openapi.json').expect(200);
  const routes: string[] = [];
  for (const [path, item] of Object.entries(doc.body.paths as Record<string, object>)) {
    if (!path.startsWith('/v1/')) continue;
    for (const method of Object.keys(item)) {
      routes.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
  }
  return routes;
}

function call(api: TestApi, route: string, authorization?: string) {
  const [method, path] = route.split(' ');
  const url = path.replace(/:\w+/g, SOME_ID);
  const req = request(api.server)[method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](url);
  if (authorization !== undefined) void req.set('Authorization', authorization);
  return req.send({});
}

describe('API keys and scopes', () => {
  let env: TestEnv;
  let api: TestApi;
  let routes: string[];
  let accountId: string;
  const bad: Record<string, string | undefined> = {};

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    routes = await servedRoutes(api);
    accountId = await api.account();
    const revoked = await api.key(accountId);
    const suspended = await api.key(accountId);
    await api.prisma.apiKey.update({ where: { id: revoked.id }, data: { status: 'revoked' } });
    await api.prisma.apiKey.update({ where: { id: suspended.id }, data: { status: 'suspended' } });
    const live = await api.key(accountId);
    Object.assign(bad, {
      missing: undefined,
      'not bearer': `Basic ${live.key}`,
      'empty bearer': 'Bearer ',
      'unknown live key': `Bearer sk_live_${'A'.repeat(43)}`,
      'test-mode key': `Bearer ${live.key.replace('sk_live_', 'sk_test_')}`,
      'truncated key': `Bearer ${live.key.slice(0, 50)}`,
      'key with a changed character': `Bearer ${live.key.slice(0, -1)}${live.key.endsWith('A') ? 'B' : 'A'}`,
      revoked: `Bearer ${revoked.key}`,
      suspended: `Bearer ${suspended.key}`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  it('serves only /v1 routes that the scope table names', () => {
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const missing = routes.filter((route) => !(route in ROUTE_SCOPES));
    expect(missing).toEqual([]);
  });

  it('issues 51-character sk_live_ keys', async () => {
    const { key } = await api.key(accountId);
    expect(key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(key).toHaveLength(51);
  });

  it('stores only a keyed hash of the secret', async () => {
    const { id, key } = await api.key(accountId);
    const [row] = await env.sql<{ secret_hash: string; last_four: string }>(
      'SELECT secret_hash, last_four FROM api_keys WHERE id = $1',
      [id],
    );
    expect(row.secret_hash).not.toContain(key.slice(8));
    expect(row.last_four).toBe(key.slice(-4));
  });

  it.each([
    'missing',
    'not bearer',
    'empty bearer',
    'unknown live key',
    'test-mode key',
    'truncated key',
    'key with a changed character',
    'revoked',
    'suspended',
  ])('answers 401 invalid_credential on every route: %s', async (kind) => {
    for (const route of routes) {
      const response = await call(api, route, bad[kind]);
      expect({ route, status: response.status, code: response.body.error?.code }).toEqual({
        route,
        status: 401,
        code: 'invalid_credential',
      });
      expect(response.body.error.details ?? []).toEqual([]);
    }
  });

  it('answers 403 insufficient_scope on every route for a key lacking its scope', async () => {
    for (const route of routes) {
      const scope = ROUTE_SCOPES[route];
      const others: Scope[] = SCOPES.filter((candidate) => candidate !== scope);
      const { key } = await api.key(accountId, others);
      const response = await call(api, route, `Bearer ${key}`);
      expect({ route, status: response.status, code: response.body.error?.code }).toEqual({
        route,
        status: 403,
        code: 'insufficient_scope',
      });
    }
  });

  it('lets a key holding exactly the required scope through on every route', async () => {
    for (const route of routes) {
      const { key } = await api.key(accountId, [ROUTE_SCOPES[route]]);
      const response = await call(api, route, `Bearer ${key}`);
      expect({ route, status: response.status }).not.toEqual({ route, status: 401 });
      expect({ route, status: response.status }).not.toEqual({ route, status: 403 });
    }
  });

  // Verified keys are cached per process (ApiKeyCache) for KEY_CACHE_TTL_MS; a change to a
  // key must reach the cache long before that, whoever made it.
  const get = (key: string) =>
    request(api.server).get('/v1/subscribers').set('Authorization', `Bearer ${key}`);
  const refusedSoon = (key: string) =>
    waitFor(async () => (await get(key)).status === 401, {
      timeoutMs: KEY_CACHE_TTL_MS / 5,
      message: 'the changed key is still accepted',
    });

  it('refuses a key at once in the process that revoked it', async () => {
    const { id, key } = await api.key(accountId, ['subscribers:read']);
    await get(key).expect(200);
    expect(
      await api.app.get(ApiKeysService).setStatus(parseAccountId(accountId), id, 'revoked'),
    ).toBe(true);
    await get(key).expect(401);
  });

  it('refuses a key revoked or suspended elsewhere (CLI, another process, plain SQL) within moments', async () => {
    for (const status of ['revoked', 'suspended']) {
      const { id, key } = await api.key(accountId, ['subscribers:read']);
      await get(key).expect(200);
      await env.sql('UPDATE api_keys SET status = $2 WHERE id = $1', [id, status]);
      await refusedSoon(key);
    }
  });

  it('hears of changes again after losing its PostgreSQL connection', async () => {
    const listeners = () =>
      env.sql<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'herald-api-key-changes'
            AND query ILIKE 'LISTEN%' AND state = 'idle'`,
      );
    const [before] = await waitFor(async () => {
      const found = await listeners();
      return found.length === 1 && found;
    });
    await env.sql('SELECT pg_terminate_backend($1)', [before.pid]);
    await waitFor(async () => {
      const found = await listeners();
      return found.length === 1 && found[0].pid !== before.pid;
    });
    const { id, key } = await api.key(accountId, ['subscribers:read']);
    await get(key).expect(200);
    await env.sql("UPDATE api_keys SET status = 'revoked' WHERE id = $1", [id]);
    await refusedSoon(key);
  });

  it('records when a key was last used', async () => {
    const { id, key } = await api.key(accountId, ['subscribers:read']);
    await request(api.server)
      .get('/v1/subscribers')
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    const [row] = await env.sql<{ last_used_at: Date | null }>(
      'SELECT last_used_at FROM api_keys WHERE id = $1',
      [id],
    );
    expect(row.last_used_at).toBeInstanceOf(Date);
  });

  it('keeps one account out of another account’s data', async () => {
    const other = await api.tenant('Other');
    const mine = await api.tenant('Mine');
    const created = await request(api.server)
      .post('/v1/subscribers')
      .set('Authorization', mine.auth)
      .send({ email: 'private@example.com' })
      .expect(201);
    await request(api.server)
      .get(`/v1/subscribers/${created.body.id}`)
      .set('Authorization', other.auth)
      .expect(404);
    await request(api.server)
      .patch(`/v1/subscribers/${created.body.id}`)
      .set('Authorization', other.auth)
      .send({ first_name: 'Mallory' })
      .expect(404);
    const list = await request(api.server).get('/v1/subscribers').set('Authorization', other.auth);
    expect(list.body.data).toEqual([]);
  });
});
