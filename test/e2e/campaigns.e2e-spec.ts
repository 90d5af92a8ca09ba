import request from 'supertest';
import { newId } from '../../src/platform/crypto/ids';
import { TestApi, TestEnv } from '../support/test-env';

/** Campaign CRUD, validation and the draft-only rules, without workers. */
describe('campaigns API', () => {
  let env: TestEnv;
  let api: TestApi;
  let tenant: { accountId: string; auth: string };
  let other: { accountId: string; auth: string };

  beforeAll(async () => {
    env = await TestEnv.create({ RATE_LIMIT: '100000', RATE_LIMIT_SEND: '100000' });
    api = await TestApi.start(env, { workers: false });
    tenant = await api.tenant('Campaigner');
    other = await api.tenant('Other');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const post = (body: object, auth = tenant.auth) =>
    request(api.server).post('/v1/campaigns').set('Authorization', auth).send(body);
  const inline = { name: 'News', subject: 'Hi {{first_name}}', from: 'Acme <news@acme.test>' };

  it('creates a draft from inline content (201) and reads it back', async () => {
    const created = await post({ ...inline, html: '<p>Hi</p>', text: 'Hi' }).expect(201);
    expect(created.body).toMatchObject({
      name: 'News',
      subject: 'Hi {{first_name}}',
      from: 'Acme <news@acme.test>',
      template_id: null,
      segment_id: null,
      html: '<p>Hi</p>',
      text: 'Hi',
      status: 'draft',
      progress: { recipients: 0, sent: 0, delivered: 0, failed: 0, skipped: 0, percent: 0 },
      started_at: null,
      finished_at: null,
    });
    const read = await request(api.server)
      .get(`/v1/campaigns/${created.body.id}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    expect(read.body).toEqual(created.body);
    const list = await request(api.server)
      .get('/v1/campaigns')
      .set('Authorization', tenant.auth)
      .expect(200);
    const ids = (list.body.data as { id: string }[]).map((c) => c.id);
    expect(ids).toContain(created.body.id);
  });

  it('creates a draft from a template and a segment of the account', async () => {
    const template = await request(api.server)
      .post('/v1/templates')
      .set('Authorization', tenant.auth)
      .send({
        name: 'T',
        subject: 'ignored',
        html: '<p>{{first_name}}</p>',
        text: '{{first_name}}',
      })
      .expect(201);
    const segment = await request(api.server)
      .post('/v1/segments')
      .set('Authorization', tenant.auth)
      .send({ name: 'S', filter: {} })
      .expect(201);
    const created = await post({
      ...inline,
      template_id: template.body.id,
      segment_id: segment.body.id,
    }).expect(201);
    expect(created.body).toMatchObject({
      template_id: template.body.id,
      segment_id: segment.body.id,
      html: null,
    });
  });

  it('answers 422 naming the field for unknown or foreign template and segment ids', async () => {
    const foreign = await request(api.server)
      .post('/v1/templates')
      .set('Authorization', other.auth)
      .send({ name: 'T', subject: 's', text: 'x' })
      .expect(201);
    const response = await post({
      ...inline,
      template_id: foreign.body.id,
      segment_id: newId(),
    }).expect(422);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'template_id', code: 'not_found' }),
        expect.objectContaining({ field: 'segment_id', code: 'not_found' }),
      ]),
    );
  });

  it('needs exactly one content source and merge fields that compile', async () => {
    const none = await post(inline).expect(422);
    expect(none.body.error.details[0]).toMatchObject({ field: 'template_id', code: 'required' });
    const both = await post({ ...inline, template_id: newId(), text: 'x' }).expect(422);
    expect(both.body.error.details[0]).toMatchObject({ field: 'template_id', code: 'conflict' });
    const broken = await post({ ...inline, html: '<p>{{#if}}</p>' }).expect(422);
    expect(broken.body.error.details[0]).toMatchObject({ field: 'html' });
  });

  it('validates fields: missing → 400, malformed → 422', async () => {
    await post({ subject: 's', from: 'a@b.test', text: 'x' }).expect(400);
    const bad = await post({ ...inline, from: 'not an address', text: 'x' }).expect(422);
    expect(bad.body.error.details[0]).toMatchObject({ field: 'from', code: 'invalid_format' });
    const injected = await post({ ...inline, subject: 'a\r\nBcc: x@y.test', text: 'x' }).expect(
      422,
    );
    expect(injected.body.error.details[0]).toMatchObject({ field: 'subject' });
  });

  it('patches a draft, switching between inline content and a template', async () => {
    const created = await post({ ...inline, text: 'Hello' }).expect(201);
    const renamed = await request(api.server)
      .patch(`/v1/campaigns/${created.body.id}`)
      .set('Authorization', tenant.auth)
      .send({ name: 'Renamed', html: '<b>Hello</b>' })
      .expect(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', html: '<b>Hello</b>', text: 'Hello' });
    await request(api.server)
      .patch(`/v1/campaigns/${created.body.id}`)
      .set('Authorization', tenant.auth)
      .send({ segment_id: newId() })
      .expect(422);
  });

  it('deletes a draft (204); other accounts see 404 everywhere', async () => {
    const created = await post({ ...inline, text: 'Bye' }).expect(201);
    const id = created.body.id as string;
    for (const call of [
      request(api.server).get(`/v1/campaigns/${id}`),
      request(api.server).patch(`/v1/campaigns/${id}`).send({ name: 'x' }),
      request(api.server).delete(`/v1/campaigns/${id}`),
      request(api.server).post(`/v1/campaigns/${id}/send`),
      request(api.server).get(`/v1/campaigns/${id}/stats`),
    ]) {
      const response = await call.set('Authorization', other.auth).expect(404);
      expect(response.body.error.code).toBe('not_found');
    }
    await request(api.server)
      .delete(`/v1/campaigns/${id}`)
      .set('Authorization', tenant.auth)
      .expect(204);
    await request(api.server)
      .get(`/v1/campaigns/${id}`)
      .set('Authorization', tenant.auth)
      .expect(404);
    await request(api.server)
      .post('/v1/campaigns/not-a-uuid/send')
      .set('Authorization', tenant.auth)
      .expect(404);
  });

  it('sends once: 202, then 409 for sends, edits and deletes; stats while sending', async () => {
    const created = await post({ ...inline, text: 'Once' }).expect(201);
    const id = created.body.id as string;
    const accepted = await request(api.server)
      .post(`/v1/campaigns/${id}/send`)
      .set('Authorization', tenant.auth)
      .expect(202);
    expect(accepted.body).toEqual({ id, status: 'sending' });
    await request(api.server)
      .post(`/v1/campaigns/${id}/send`)
      .set('Authorization', tenant.auth)
      .expect(409);
    await request(api.server)
      .patch(`/v1/campaigns/${id}`)
      .set('Authorization', tenant.auth)
      .send({ name: 'Late' })
      .expect(409);
    await request(api.server)
      .delete(`/v1/campaigns/${id}`)
      .set('Authorization', tenant.auth)
      .expect(409);
    // No worker runs in this process: the campaign stays sending, with nothing counted yet.
    const stats = await request(api.server)
      .get(`/v1/campaigns/${id}/stats`)
      .set('Authorization', tenant.auth)
      .expect(200);
    expect(stats.body).toMatchObject({
      id,
      status: 'sending',
      recipients: 0,
      sent: 0,
      delivered: 0,
      failed: 0,
      skipped_erased: 0,
      skipped_unsubscribed: 0,
      opens: 0,
      clicks: 0,
      bounces: 0,
      outstanding: 0,
    });
  });

  it('requires the campaign scopes', async () => {
    const { key } = await api.key(tenant.accountId, ['campaigns:read']);
    const created = await post({ ...inline, text: 'x' }).expect(201);
    await request(api.server)
      .post(`/v1/campaigns/${created.body.id}/send`)
      .set('Authorization', `Bearer ${key}`)
      .expect(403);
    await request(api.server)
      .get(`/v1/campaigns/${created.body.id}/stats`)
      .set('Authorization', `Bearer ${key}`)
      .expect(403);
    await post({ ...inline, text: 'x' }, `Bearer ${key}`).expect(403);
  });
});
