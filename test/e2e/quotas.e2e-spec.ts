import request from 'supertest';
import { Tenant } from '../support/factories';
import { TestApi, TestEnv } from '../support/test-env';

/**
 * Per-account quotas: 20 webhook endpoints, 50 sender domains, 3 imports or exports queued or
 * running at once. Each is tested at the limit with concurrent creates: exactly as many pass
 * as there is room for, the rest get 422 `quota_exceeded`.
 */
describe('per-account quotas', () => {
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create({ RATE_LIMIT: '100000', WEBHOOK_ALLOW_PRIVATE: '1' });
    // No workers: imports and exports stay queued, so they hold their places.
    api = await TestApi.start(env, { workers: false });
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const post = (tenant: Tenant, path: string) =>
    request(api.server).post(path).set('Authorization', tenant.auth);

  const quotaExceeded = (field: string) => ({
    error: {
      code: 'validation_failed',
      message: expect.any(String),
      details: [{ field, code: 'quota_exceeded', message: expect.any(String) }],
    },
  });

  /** Fires `creates` at once; the answers by status, each with its label and body. */
  async function concurrently(creates: [string, () => request.Test][]) {
    const responses = await Promise.all(
      creates.map(async ([label, create]) => ({ label, response: await create() })),
    );
    const byStatus = new Map<number, { label: string; body: unknown }[]>();
    for (const { label, response } of responses) {
      const answers = byStatus.get(response.status) ?? [];
      answers.push({ label, body: response.body as unknown });
      byStatus.set(response.status, answers);
    }
    return byStatus;
  }

  it('allows 20 webhook endpoints, even when creates race at the limit', async () => {
    const tenant = await api.tenant('Hooks');
    const webhook = (index: number) => () =>
      post(tenant, '/v1/webhooks').send({
        url: `http://127.0.0.1:9/hook/${index}`,
        events: ['email.sent'],
      });
    for (let index = 0; index < 17; index++) await webhook(index)().expect(201);
    const answers = await concurrently(
      [17, 18, 19, 20, 21, 22].map((index) => ['webhook', webhook(index)]),
    );
    expect([answers.get(201)?.length, answers.get(422)?.length]).toEqual([3, 3]);
    for (const refused of answers.get(422)!) expect(refused.body).toEqual(quotaExceeded('url'));
    const rows = await env.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1',
      [tenant.accountId],
    );
    expect(rows[0].n).toBe(20);
    // Room again once one is deleted.
    const list = await request(api.server)
      .get('/v1/webhooks?limit=1')
      .set('Authorization', tenant.auth)
      .expect(200);
    await request(api.server)
      .delete(`/v1/webhooks/${list.body.data[0].id}`)
      .set('Authorization', tenant.auth)
      .expect(204);
    await webhook(99)().expect(201);
  });

  it('allows 50 sender domains, even when creates race at the limit', async () => {
    const tenant = await api.tenant('Domains');
    // The first 48 straight into the table: each created through the API costs an RSA key.
    await env.sql(
      `INSERT INTO sender_domains (id, account_id, name)
       SELECT gen_random_uuid(), $1, 'd' || n || '.quota.test' FROM generate_series(1, 48) n`,
      [tenant.accountId],
    );
    const domain = (index: number) => () =>
      post(tenant, '/v1/domains').send({ name: `new${index}.quota.test` });
    const answers = await concurrently([1, 2, 3, 4].map((index) => ['domain', domain(index)]));
    expect([answers.get(201)?.length, answers.get(422)?.length]).toEqual([2, 2]);
    for (const refused of answers.get(422)!) expect(refused.body).toEqual(quotaExceeded('name'));
  });

  it('allows 3 imports or exports queued or running at once, together', async () => {
    const tenant = await api.tenant('Bulk');
    const csv = Buffer.from('email\nada@quota.test\n');
    const startImport = () => () => post(tenant, '/v1/imports').attach('file', csv, 'list.csv');
    const startExport = () => () => post(tenant, '/v1/exports').send({});
    await startImport()().expect(202);
    const answers = await concurrently([
      ['exports', startExport()],
      ['exports', startExport()],
      ['imports', startImport()],
      ['exports', startExport()],
    ]);
    expect([answers.get(202)?.length, answers.get(422)?.length]).toEqual([2, 2]);
    for (const refused of answers.get(422)!) {
      expect(refused.body).toEqual(quotaExceeded(refused.label));
    }
    // A finished one makes room.
    await env.sql(
      `UPDATE subscriber_exports SET status = 'done' WHERE account_id = $1
       AND id = (SELECT id FROM subscriber_exports WHERE account_id = $1 LIMIT 1)`,
      [tenant.accountId],
    );
    const stillFull = await env.sql<{ n: number }>(
      `SELECT (SELECT count(*) FROM subscriber_exports WHERE account_id = $1 AND status IN ('queued', 'running'))
            + (SELECT count(*) FROM subscriber_imports WHERE account_id = $1 AND status IN ('queued', 'running')) AS n`,
      [tenant.accountId],
    );
    expect(Number(stillFull[0].n)).toBeLessThan(3);
    await startExport()().expect(202);
  });
});
