import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';
import { DashboardAgent } from './dashboard-agent';

interface AuditView {
  action: string;
  actor: { type: string; email?: string | null; name?: string | null };
  metadata: Record<string, unknown>;
}

/**
 * One HTTP surface: the domain controllers answer /v1 for API keys and /dashboard/api for
 * signed-in people, and the services audit both with the real actor.
 */
describe('one surface, two credentials', () => {
  let env: TestEnv;
  let api: TestApi;
  let owner: DashboardAgent;
  let auth: string;

  beforeAll(async () => {
    env = await TestEnv.create();
    // Without workers: a send is claimed and queued, and nothing consumes it.
    api = await TestApi.start(env, { workers: false });
    owner = new DashboardAgent(api);
    await owner.signUp('owner@acme.test', 'Acme');
    const key = await owner.post('/dashboard/api/keys', {
      name: 'Integration',
      scopes: ['templates:read', 'templates:write', 'segments:write', 'subscribers:read'],
    });
    expect(key.status).toBe(201);
    auth = `Bearer ${key.body.secret}`;
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const v1 = () => request(api.server);
  const remove = (path: string) => owner.http.delete(path).set('X-CSRF-Token', owner.csrf);

  it('serves the same resource to a key on /v1 and to a person on /dashboard/api', async () => {
    const created = await owner.post('/dashboard/api/templates', {
      name: 'Welcome',
      subject: 'Hi {{first_name}}',
      text: 'Hello',
    });
    expect(created.status).toBe(201);
    const viaKey = await v1().get(`/v1/templates/${created.body.id}`).set('Authorization', auth);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body).toEqual(created.body);
    const viaSession = await owner.get(`/dashboard/api/templates/${created.body.id}`);
    expect(viaSession.body).toEqual(created.body);
  });

  it('keeps each credential to its own prefix', async () => {
    const withKey = await v1().get('/dashboard/api/templates').set('Authorization', auth);
    expect(withKey.status).toBe(401);
    const signIn = await new DashboardAgent(api).signIn('owner@acme.test');
    const session = ([] as string[])
      .concat(signIn.headers['set-cookie'] ?? [])
      .find((cookie) => cookie.startsWith('herald_session='))!
      .split(';')[0];
    const withSession = await v1().get('/v1/templates').set('Cookie', session);
    expect(withSession.status).toBe(401);
    expect(withSession.body.error.code).toBe('invalid_credential');
  });

  it('refuses a dashboard write without its CSRF token, and says that was the reason', async () => {
    const refused = await owner.http.post('/dashboard/api/templates').send({ name: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/CSRF/);
  });

  it('searches the subscriber list by email on the dashboard only', async () => {
    for (const email of ['ada@example.com', 'grace@example.com']) {
      expect((await owner.post('/dashboard/api/subscribers', { email })).status).toBe(201);
    }
    const emails = (response: request.Response) =>
      (response.body.data as { email: string }[]).map((subscriber) => subscriber.email);
    const dashboard = await owner.get('/dashboard/api/subscribers?q=ada').expect(200);
    expect(emails(dashboard)).toEqual(['ada@example.com']);
    const viaKey = await v1().get('/v1/subscribers?q=ada').set('Authorization', auth).expect(200);
    expect(emails(viaKey)).toEqual(['grace@example.com', 'ada@example.com']);
  });

  it('leaves the dashboard’s paths out of the public API document', async () => {
    const doc = await v1().get('/openapi.json').expect(200);
    const paths = Object.keys(doc.body.paths as object);
    expect(paths).toContain('/v1/templates/{id}');
    expect(paths.filter((path) => path.startsWith('/dashboard'))).toEqual([]);
    // Two paths per controller do not show in the operation ids clients generate names from.
    const operations = doc.body.paths as Record<string, Record<string, { operationId: string }>>;
    expect(operations['/v1/subscribers'].get.operationId).toBe('listSubscribers');
    const ids = Object.values(operations).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(ids.filter((id) => id.includes('['))).toEqual([]);
  });

  it('audits creations, deletions and sends from both surfaces with the real actor', async () => {
    // Through the dashboard, as the signed-in owner.
    const segment = await owner.post('/dashboard/api/segments', { name: 'All', filter: {} });
    const campaign = await owner.post('/dashboard/api/campaigns', {
      name: 'News',
      subject: 'News',
      from: 'news@acme.test',
      text: 'Hello',
      segment_id: segment.body.id,
    });
    const draft = await owner.post('/dashboard/api/campaigns', {
      name: 'Draft',
      subject: 'Draft',
      from: 'news@acme.test',
      text: 'Draft',
    });
    expect((await remove(`/dashboard/api/campaigns/${draft.body.id}`)).status).toBe(204);
    expect((await owner.post(`/dashboard/api/campaigns/${campaign.body.id}/send`)).status).toBe(
      202,
    );

    // Through /v1, as the key.
    const template = await v1()
      .post('/v1/templates')
      .set('Authorization', auth)
      .send({ name: 'T', subject: 'S', text: 'x' })
      .expect(201);
    await v1().delete(`/v1/templates/${template.body.id}`).set('Authorization', auth).expect(204);
    const keySegment = await v1()
      .post('/v1/segments')
      .set('Authorization', auth)
      .send({ name: 'None', filter: { field: 'email', op: 'eq', value: 'x@example.com' } })
      .expect(201);
    await v1().delete(`/v1/segments/${keySegment.body.id}`).set('Authorization', auth).expect(204);

    const audit = await owner.get('/dashboard/api/audit?limit=100').expect(200);
    const events = audit.body.data as AuditView[];
    const person = { type: 'user', email: 'owner@acme.test' };
    const key = { type: 'api_key', name: 'Integration' };
    const find = (action: string, field: string, id: string) =>
      events.find((event) => event.action === action && event.metadata[field] === id);

    expect(find('segment.created', 'segment_id', segment.body.id)?.actor).toMatchObject(person);
    expect(find('campaign.created', 'campaign_id', campaign.body.id)?.actor).toMatchObject(person);
    expect(find('campaign.deleted', 'campaign_id', draft.body.id)?.actor).toMatchObject(person);
    expect(find('campaign.sent', 'campaign_id', campaign.body.id)?.actor).toMatchObject(person);
    expect(find('template.created', 'template_id', template.body.id)?.actor).toMatchObject(key);
    expect(find('template.deleted', 'template_id', template.body.id)?.actor).toMatchObject(key);
    expect(find('segment.created', 'segment_id', keySegment.body.id)?.actor).toMatchObject(key);
    expect(find('segment.deleted', 'segment_id', keySegment.body.id)?.actor).toMatchObject(key);
    // Nothing the surfaces record is left without an actor.
    expect(events.filter((event) => event.actor.type === 'system')).toEqual([]);
  });

  it('audits a /v1 campaign send with the key that sent it', async () => {
    const { auth: sender, keyId } = await api.tenant('Senders');
    const campaign = await v1()
      .post('/v1/campaigns')
      .set('Authorization', sender)
      .send({ name: 'API news', subject: 'News', from: 'news@acme.test', text: 'Hello' })
      .expect(201);
    await v1()
      .post(`/v1/campaigns/${campaign.body.id}/send`)
      .set('Authorization', sender)
      .expect(202);
    const rows = await env.sql<{ action: string; api_key_id: string | null; metadata: object }>(
      `SELECT action, api_key_id, metadata FROM audit_events
        WHERE metadata->>'campaign_id' = $1 ORDER BY id`,
      [campaign.body.id],
    );
    expect(rows).toEqual([
      {
        action: 'campaign.created',
        api_key_id: keyId,
        metadata: { campaign_id: campaign.body.id },
      },
      { action: 'campaign.sent', api_key_id: keyId, metadata: { campaign_id: campaign.body.id } },
    ]);
  });
});
