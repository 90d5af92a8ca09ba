import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';

/** One error envelope, eight statuses, details only on 422. */
describe('error envelope', () => {
  let env: TestEnv;
  let api: TestApi;
  let auth: string;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    ({ auth } = await api.tenant());
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const post = (body: string | object, contentType = 'application/json') =>
    request(api.server)
      .post('/v1/subscribers')
      .set('Authorization', auth)
      .set('Content-Type', contentType)
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  function expectEnvelope(response: request.Response, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error.code).toBe(code);
    expect(typeof response.body.error.message).toBe('string');
    expect(response.body.error.message.length).toBeGreaterThan(0);
    if (status !== 422) expect(response.body.error.details ?? []).toEqual([]);
  }

  it.each([
    ['malformed JSON', '{"email": '],
    ['a JSON array', '[{"email": "a@example.com"}]'],
    ['a JSON string', '"a@example.com"'],
    ['JSON null', 'null'],
    ['an empty object (email missing)', '{}'],
  ])('answers 400 invalid_request to %s', async (_, body) => {
    expectEnvelope(await post(body), 400, 'invalid_request');
  });

  it('answers 400 to a body that is not JSON', async () => {
    expectEnvelope(await post('email=a@example.com', 'text/plain'), 400, 'invalid_request');
  });

  it('answers 422 at its path to a key missing inside a list item of a present field', async () => {
    const response = await post({
      email: 'social@example.com',
      social_media: [{ platform: 'mastodon' }, { profile_id: 'ada' }],
    });
    expectEnvelope(response, 422, 'validation_failed');
    expect(response.body.error.details).toEqual([
      { field: 'social_media[0].profile_id', code: 'missing', message: expect.any(String) },
      { field: 'social_media[1].platform', code: 'missing', message: expect.any(String) },
    ]);
  });

  it('answers 422 with one detail per offending field', async () => {
    const response = await post({
      email: 'not-an-email',
      first_name: 42,
      tags: 'vip',
      birthdate: 'yesterday',
      custom_fields: [1, 2],
      favourite_colour: 'blue',
    });
    expectEnvelope(response, 422, 'validation_failed');
    const byField = Object.fromEntries(
      (response.body.error.details as { field: string; code: string; message: string }[]).map(
        (detail) => [detail.field, detail.code],
      ),
    );
    expect(byField).toEqual({
      email: 'invalid_format',
      first_name: 'invalid_type',
      tags: 'invalid_type',
      birthdate: 'invalid_format',
      custom_fields: 'invalid_type',
      favourite_colour: 'unknown_field',
    });
    for (const detail of response.body.error.details) {
      expect(typeof detail.message).toBe('string');
    }
  });

  it('answers 404 not_found to an unknown route, with or without a key', async () => {
    expectEnvelope(await request(api.server).get('/v1/nothing-here'), 404, 'not_found');
    expectEnvelope(
      await request(api.server).get('/v2/subscribers').set('Authorization', auth),
      404,
      'not_found',
    );
  });

  it('answers 404 not_found to an unsupported method', async () => {
    expectEnvelope(
      await request(api.server).delete('/v1/subscribers').set('Authorization', auth),
      404,
      'not_found',
    );
    expectEnvelope(
      await request(api.server).put('/v1/subscribers/abc').set('Authorization', auth).send({}),
      404,
      'not_found',
    );
  });

  it('answers 400 to a body over the size limit', async () => {
    const huge = { email: 'big@example.com', custom_fields: { blob: 'x'.repeat(1_100_000) } };
    expectEnvelope(await post(huge), 400, 'invalid_request');
  });

  it('answers 500 internal_error without internals when the database fails', async () => {
    const { auth: otherAuth } = await api.tenant('Doomed');
    await env.sql('ALTER TABLE templates RENAME TO templates_gone');
    try {
      const response = await request(api.server)
        .get('/v1/templates')
        .set('Authorization', otherAuth);
      expectEnvelope(response, 500, 'internal_error');
      expect(JSON.stringify(response.body)).not.toMatch(/templates|prisma|relation|stack/i);
      expect(response.headers['x-request-id']).toBeTruthy();
    } finally {
      await env.sql('ALTER TABLE templates_gone RENAME TO templates');
    }
  });

  it('echoes a request id on every response', async () => {
    const response = await request(api.server)
      .get('/v1/subscribers')
      .set('Authorization', auth)
      .set('X-Request-Id', 'trace-me-123');
    expect(response.headers['x-request-id']).toBe('trace-me-123');
  });
});
