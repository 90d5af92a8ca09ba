import request from 'supertest';
import { cli } from '../support/processes';
import { TestApi, TestEnv } from '../support/test-env';
import { DashboardAgent, PASSWORD } from './dashboard-agent';

/**
 * What the dashboard shows and runs besides keys: subscribers (search, edit, erase), the
 * template preview, the segment count, a campaign's audience, the audit log, the page
 * itself, and the operator CLI's `users create`.
 */
describe('dashboard API: subscribers, content, audit, pages, CLI', () => {
  let env: TestEnv;
  let api: TestApi;
  let owner: DashboardAgent;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    owner = new DashboardAgent(api);
    await owner.signUp('owner@acme.test', 'Acme');
    for (const [email, tags, status] of [
      ['ada@example.com', ['vip'], 'subscribed'],
      ['grace@example.com', ['vip'], 'subscribed'],
      ['adam@elsewhere.org', [], 'subscribed'],
      ['gone@example.com', ['vip'], 'unsubscribed'],
    ] as const) {
      const response = await owner.post('/dashboard/api/subscribers', {
        email,
        tags,
        status,
        first_name: email.split('@')[0],
      });
      expect(response.status).toBe(201);
    }
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const emails = (body: { data: { email: string }[] }) => body.data.map((item) => item.email);

  it('searches subscribers by any part of the email, newest first, in pages', async () => {
    expect(emails((await owner.get('/dashboard/api/subscribers?q=ada@')).body)).toEqual([
      'ada@example.com',
    ]);
    expect(emails((await owner.get('/dashboard/api/subscribers?q=AD')).body)).toEqual([
      'adam@elsewhere.org',
      'ada@example.com',
    ]);
    expect(emails((await owner.get('/dashboard/api/subscribers?q=example.com')).body)).toEqual([
      'gone@example.com',
      'grace@example.com',
      'ada@example.com',
    ]);
    // LIKE wildcards in the query are matched literally.
    expect((await owner.get('/dashboard/api/subscribers?q=%25')).body.data).toEqual([]);
    expect((await owner.get('/dashboard/api/subscribers?q=a_a')).body.data).toEqual([]);

    const first = await owner.get('/dashboard/api/subscribers?limit=2').expect(200);
    expect(first.body.data).toHaveLength(2);
    const second = await owner
      .get(`/dashboard/api/subscribers?limit=2&cursor=${first.body.next_cursor}`)
      .expect(200);
    expect([...emails(first.body), ...emails(second.body)]).toHaveLength(4);
    expect(second.body.next_cursor).toBeNull();
  });

  it('shows and edits a subscriber through the subscribers service', async () => {
    const [grace] = (await owner.get('/dashboard/api/subscribers?q=grace')).body.data;
    const detail = await owner.get(`/dashboard/api/subscribers/${grace.id}`).expect(200);
    expect(detail.body.statistics).toMatchObject({ sent: 0, opens: 0 });
    const edited = await owner.patch(`/dashboard/api/subscribers/${grace.id}`, {
      last_name: 'Hopper',
      custom_fields: { rank: 'rear admiral' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      last_name: 'Hopper',
      custom_fields: { rank: 'rear admiral' },
    });
    const invalid = await owner.patch(`/dashboard/api/subscribers/${grace.id}`, { email: 'nope' });
    expect(invalid.status).toBe(422);
  });

  it('erases an identity: the data goes, a hash stays, later writes get 409, the audit log has hashes only', async () => {
    const [adam] = (await owner.get('/dashboard/api/subscribers?q=adam')).body.data;
    const receipt = await owner.post(`/dashboard/api/subscribers/${adam.id}/erase`);
    expect(receipt.status).toBe(200);
    expect(receipt.body).toEqual({ email_hash: expect.any(String), erased_at: expect.any(String) });

    expect((await owner.get(`/dashboard/api/subscribers/${adam.id}`)).status).toBe(404);
    const again = await owner.post('/dashboard/api/subscribers', { email: 'Adam@Elsewhere.org' });
    expect(again.status).toBe(409);

    const audit = await owner.get('/dashboard/api/audit').expect(200);
    expect(JSON.stringify(audit.body)).not.toContain('adam@elsewhere.org');
    expect(audit.body.data).toContainEqual(
      expect.objectContaining({
        action: 'identity.erased_from_dashboard',
        subject_hash: receipt.body.email_hash,
        actor: expect.objectContaining({ type: 'user', email: 'owner@acme.test' }),
      }),
    );
    const rows = await env.sql<{ metadata: object; subject_hash: string | null }>(
      'SELECT metadata, subject_hash FROM audit_events',
    );
    expect(JSON.stringify(rows)).not.toMatch(/adam@|elsewhere\.org/i);
  });

  it('renders an unsaved template with sample data, and names a broken field', async () => {
    const rendered = await owner.post('/dashboard/api/templates/render', {
      subject: 'Hi {{first_name}}',
      html: '<p>{{first_name}} & {{city}}</p>',
      text: null,
      data: { first_name: '<Ada>', city: 'London' },
    });
    expect(rendered.status).toBe(200);
    expect(rendered.body).toEqual({
      subject: 'Hi <Ada>',
      html: '<p>&lt;Ada&gt; & London</p>',
      text: null,
    });
    const broken = await owner.post('/dashboard/api/templates/render', {
      subject: 'Hi',
      html: '<p>{{#if}}</p>',
    });
    expect(broken.status).toBe(422);
    expect(broken.body.error.details[0]).toMatchObject({ field: 'html', code: 'invalid_template' });
  });

  it('counts an unsaved segment filter live', async () => {
    const vip = await owner.post('/dashboard/api/segments/count', {
      filter: { field: 'tags', op: 'contains', value: 'vip' },
    });
    expect(vip.body).toEqual({ count: 3 });
    const everyone = await owner.post('/dashboard/api/segments/count', { filter: {} });
    expect(everyone.body).toEqual({ count: 3 }); // adam was erased
    const bad = await owner.post('/dashboard/api/segments/count', {
      filter: { field: 'shoe_size', op: 'eq', value: '9' },
    });
    expect(bad.status).toBe(422);
  });

  it('names the recipients a send would reach: the segment minus the unmailable', async () => {
    const template = await owner.post('/dashboard/api/templates', {
      name: 'Hello',
      subject: 'Hello {{first_name}}',
      text: 'Hi',
    });
    const segment = await owner.post('/dashboard/api/segments', {
      name: 'VIPs',
      filter: { field: 'tags', op: 'contains', value: 'vip' },
    });
    const campaign = await owner.post('/dashboard/api/campaigns', {
      name: 'News',
      subject: 'News',
      from: 'Acme <news@acme.test>',
      template_id: template.body.id,
      segment_id: segment.body.id,
    });
    expect(campaign.status).toBe(201);
    const audience = await owner.get(`/dashboard/api/campaigns/${campaign.body.id}/audience`);
    // Three VIPs, one of them unsubscribed.
    expect(audience.body).toEqual({ count: 2, segment: { id: segment.body.id, name: 'VIPs' } });
    const timeline = await owner.get(`/dashboard/api/campaigns/${campaign.body.id}/timeline`);
    expect(timeline.body).toEqual({ start: null, bucket_seconds: 0, buckets: [] });
  });

  it('serves the app at /dashboard and its deep links, with a strict CSP; API 404s stay JSON', async () => {
    for (const path of ['/dashboard', '/dashboard/subscribers/123']) {
      const page = await request(api.server).get(path).expect(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.text).toContain('<div id="root">');
    }
    const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(
      (await request(api.server).get('/dashboard')).text,
    )![1];
    const script = await request(api.server).get(asset).expect(200);
    expect(script.headers['cache-control']).toContain('immutable');
    const missing = await request(api.server).get('/dashboard/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('leads / to the dashboard, and only /', async () => {
    for (const method of ['get', 'head'] as const) {
      const root = await request(api.server)[method]('/').expect(302);
      expect(root.headers.location).toBe('/dashboard');
    }
    expect((await request(api.server).get('/nothing-here')).status).toBe(404);
  });

  it('creates a user with the operator CLI, who can then sign in', async () => {
    const accountId = (await owner.probe()).body.account.id;
    const result = await cli(
      env,
      ['users', 'create', '--account', accountId, '--email', 'ops@acme.test', '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      id: expect.any(String),
      account_id: accountId,
      email: 'ops@acme.test',
      name: null,
      role: 'owner',
    });
    const agent = new DashboardAgent(api);
    const signIn = await agent.signIn('ops@acme.test');
    expect(signIn.status).toBe(200);
    expect(signIn.body.account.id).toBe(accountId);

    const duplicate = await cli(
      env,
      ['users', 'create', '--account', accountId, '--email', 'OPS@acme.test', '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toContain('email: Someone already signs in with this email.');
  });
});
