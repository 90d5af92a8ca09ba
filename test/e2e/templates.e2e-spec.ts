import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';

describe('templates (e2e)', () => {
  let env: TestEnv;
  let api: TestApi;
  let auth: string;
  let accountId: string;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    ({ auth, accountId } = await api.tenant());
  });

  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const http = () => request(api.server);
  const welcome = {
    name: 'Welcome',
    subject: 'Welcome, {{first_name}}!',
    html: '<p>Hi {{first_name}} from {{city}}</p>',
    text: 'Hi {{first_name}}',
  };
  const createTemplate = async (body: object = welcome, key = auth) =>
    http().post('/v1/templates').set('Authorization', key).send(body);

  it('creates, reads, updates and deletes a template', async () => {
    const created = await createTemplate();
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      ...welcome,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const { id } = created.body;

    const read = await http().get(`/v1/templates/${id}`).set('Authorization', auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const updated = await http()
      .patch(`/v1/templates/${id}`)
      .set('Authorization', auth)
      .send({ subject: 'Hello {{first_name}}', html: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id,
      name: 'Welcome',
      subject: 'Hello {{first_name}}',
      html: null,
      text: 'Hi {{first_name}}',
    });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(created.body.updated_at),
    );

    const deleted = await http().delete(`/v1/templates/${id}`).set('Authorization', auth);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await http().get(`/v1/templates/${id}`).set('Authorization', auth);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
  });

  it('accepts a text-only template', async () => {
    const created = await createTemplate({ name: 'Plain', subject: 'Hi', text: 'Just text' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ html: null, text: 'Just text' });
  });

  describe('preview', () => {
    let templateId: string;

    beforeAll(async () => {
      const created = await createTemplate({
        name: 'Preview',
        subject: '{{first_name}}, your {{plan}} plan',
        html: '<p>{{first_name}} {{#each tags}}[{{this}}]{{/each}}</p>',
        text: '{{first_name}} {{custom_fields.plan}}',
      });
      templateId = created.body.id;
    });

    it('renders sample data, escaping in html only', async () => {
      const response = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', auth)
        .send({ data: { first_name: '<Ada>', plan: 'pro', tags: ['a'] } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        subject: '<Ada>, your pro plan',
        html: '<p>&lt;Ada&gt; [a]</p>',
        text: '<Ada> ',
      });
    });

    it('renders with no data at all, missing variables empty', async () => {
      const response = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', auth)
        .send({});
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ subject: ', your  plan', html: '<p> </p>', text: ' ' });
    });

    it('renders against a real subscriber, sample data winning', async () => {
      const subscriber = await http()
        .post('/v1/subscribers')
        .set('Authorization', auth)
        .send({
          email: 'ada@example.com',
          first_name: 'Ada',
          tags: ['vip'],
          custom_fields: { plan: 'gold' },
        });
      expect(subscriber.status).toBe(201);
      const response = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', auth)
        .send({ subscriber_id: subscriber.body.id, data: { first_name: 'Augusta' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        subject: 'Augusta, your gold plan',
        html: '<p>Augusta [vip]</p>',
        text: 'Augusta gold',
      });
    });

    it("needs subscribers:read to show a subscriber's data, not only templates:read", async () => {
      const subscriber = await http()
        .post('/v1/subscribers')
        .set('Authorization', auth)
        .send({ email: 'private@example.com', first_name: 'Private' });
      expect(subscriber.status).toBe(201);
      // A key of the same account (another account would get a 404) without subscribers:read.
      const { key } = await api.make.key(accountId, ['templates:read']);
      const sameAccount = `Bearer ${key}`;
      const refused = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', sameAccount)
        .send({ subscriber_id: subscriber.body.id });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      expect(JSON.stringify(refused.body)).not.toContain('Private');
      const sampleOnly = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', sameAccount)
        .send({ data: { first_name: 'Sample' } });
      expect(sampleOnly.status).toBe(200);
    });

    it('answers 422 for a subscriber of another account', async () => {
      const other = await api.tenant('Other');
      const theirs = await http()
        .post('/v1/subscribers')
        .set('Authorization', other.auth)
        .send({ email: 'theirs@example.com' });
      const response = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', auth)
        .send({ subscriber_id: theirs.body.id });
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        { field: 'subscriber_id', code: 'not_found', message: expect.any(String) },
      ]);
    });

    it('works with templates:read alone', async () => {
      const { key } = await api.key(accountId, ['templates:read']);
      const response = await http()
        .post(`/v1/templates/${templateId}/preview`)
        .set('Authorization', `Bearer ${key}`)
        .send({ data: {} });
      expect(response.status).toBe(200);
    });
  });

  describe('validation', () => {
    it('answers 422 with the line and column for each template that does not compile', async () => {
      const response = await createTemplate({
        name: 'Broken',
        subject: 'Hi {{first_name',
        html: '<h1>Hi</h1>\n<p>{{#if vip}}VIP</p>\n<p>Bye</p>',
        text: 'fine {{first_name}}\n\n  {{name "x}}',
      });
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.details).toEqual([
        {
          field: 'subject',
          code: 'invalid_template',
          message: 'On line 1, column 4: this {{…}} tag is never closed with }}.',
          line: 1,
          column: 4,
        },
        {
          field: 'html',
          code: 'invalid_template',
          message: 'On line 2, column 4: {{#if}} is never closed; add {{/if}} where it ends.',
          line: 2,
          column: 4,
        },
        {
          field: 'text',
          code: 'invalid_template',
          message: 'On line 3, column 10: a quoted value is not closed; add the closing ".',
          line: 3,
          column: 10,
        },
      ]);
      // The same through PATCH.
      const created = await createTemplate();
      const patched = await http()
        .patch(`/v1/templates/${created.body.id}`)
        .set('Authorization', auth)
        .send({ html: '<p>\n  {{#each items}}{{name}}{{/if}}\n</p>' });
      expect(patched.status).toBe(422);
      expect(patched.body.error.details).toEqual([
        {
          field: 'html',
          code: 'invalid_template',
          message: expect.stringMatching(/^On line 2, column 6: \{\{#each\}\} is closed by/),
          line: 2,
          column: 6,
        },
      ]);
    });

    it('answers 422 when neither html nor text is given', async () => {
      const response = await createTemplate({ name: 'Empty', subject: 'Hi', html: '' });
      expect(response.status).toBe(422);
      const details = response.body.error.details as { field: string }[];
      expect(details.map((d) => d.field)).toEqual(['html', 'text']);
    });

    it('answers 422 when a PATCH would remove the last body', async () => {
      const created = await createTemplate({ name: 'Only html', subject: 'Hi', html: '<p>x</p>' });
      const response = await http()
        .patch(`/v1/templates/${created.body.id}`)
        .set('Authorization', auth)
        .send({ html: null });
      expect(response.status).toBe(422);
    });

    it('answers 422 when a PATCH breaks the template, and keeps it unchanged', async () => {
      const created = await createTemplate();
      const response = await http()
        .patch(`/v1/templates/${created.body.id}`)
        .set('Authorization', auth)
        .send({ text: '{{#each}}{{/each}}' });
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        {
          field: 'text',
          code: 'invalid_template',
          message: expect.any(String),
          line: 1,
          column: 1,
        },
      ]);
      const read = await http().get(`/v1/templates/${created.body.id}`).set('Authorization', auth);
      expect(read.body.text).toBe(welcome.text);
    });

    it('answers 422 for a wrongly typed field', async () => {
      const response = await createTemplate({ ...welcome, html: 42 });
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        expect.objectContaining({ field: 'html', code: 'invalid_type' }),
      ]);
    });

    it.each(['name', 'subject'])('answers 400 when %s is missing', async (field) => {
      const body: Record<string, unknown> = { ...welcome };
      delete body[field];
      const response = await createTemplate(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
    });
  });

  describe('ids of other accounts and unknown ids', () => {
    let theirId: string;

    beforeAll(async () => {
      const other = await api.tenant('Other again');
      theirId = (await createTemplate(welcome, other.auth)).body.id;
    });

    it.each([
      ['GET', '', undefined],
      ['PATCH', '', { name: 'x' }],
      ['DELETE', '', undefined],
      ['POST', '/preview', { data: {} }],
    ])('answers 404 to %s%s', async (method, suffix, body) => {
      for (const id of [theirId, '01900000-0000-7000-8000-000000000000', 'not-a-uuid']) {
        const path = `/v1/templates/${id}${suffix}`;
        const call = http()[method.toLowerCase() as 'get' | 'patch' | 'delete' | 'post'](path);
        const response = await call.set('Authorization', auth).send(body);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
    });
  });

  it('keeps a template that an unsent campaign uses (409), and deletes it once sent', async () => {
    const template = await createTemplate();
    const { id: campaignId } = await api.make.campaign(accountId, {
      name: 'Spring',
      subject: 'Hi',
      fromAddress: 'news@example.com',
      templateId: template.body.id,
      html: null,
      text: null,
    });
    const path = `/v1/templates/${template.body.id}`;
    const refused = await http().delete(path).set('Authorization', auth);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');

    await api.prisma.campaign.update({ where: { id: campaignId }, data: { status: 'sent' } });
    expect((await http().delete(path).set('Authorization', auth)).status).toBe(204);
  });

  it('needs templates:write for writes', async () => {
    const { key } = await api.key(accountId, ['templates:read']);
    const readOnly = `Bearer ${key}`;
    const id = (await createTemplate()).body.id;
    const attempts = [
      http().post('/v1/templates').send(welcome),
      http().patch(`/v1/templates/${id}`).send({ name: 'x' }),
      http().delete(`/v1/templates/${id}`),
    ];
    for (const attempt of attempts) {
      const response = await attempt.set('Authorization', readOnly);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('insufficient_scope');
    }
    const read = await http().get(`/v1/templates/${id}`).set('Authorization', readOnly);
    expect(read.status).toBe(200);
  });

  it('pages newest first by cursor', async () => {
    const tenant = await api.tenant('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createTemplate({ ...welcome, name: `T${i}` }, tenant.auth)).body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor ? { cursor } : {}) };
      const page = await http().get('/v1/templates').query(query).set('Authorization', tenant.auth);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.data as { id: string }[]).map((t) => t.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });
});
