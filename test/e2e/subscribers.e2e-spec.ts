import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';

const FULL = {
  email: 'Ada.Lovelace@Example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone: '+44 20 7946 0000',
  address1: '12 St James’s Square',
  address2: 'Flat 1',
  city: 'London',
  state: 'Greater London',
  zip: 'SW1Y 4JH',
  country_code: 'GB',
  birthdate: '1915-12-10T00:00:00.000Z',
  gender: 'female',
  income_level: 'high',
  membership_status: 'gold',
  status: 'subscribed',
  timezone: 'Europe/London',
  interests: ['mathematics', 'poetry'],
  tags: ['vip', 'founder'],
  custom_fields: { engine: 'analytical', notes: { year: 1843, published: true } },
  social_media: [{ platform: 'mastodon', profile_id: '@ada' }],
};

const STATISTICS_KEYS = [
  'clicks',
  'delivered',
  'hard_bounces',
  'last_click_at',
  'last_open_at',
  'last_sent_at',
  'opens',
  'revenue_cents',
  'sent',
  'soft_bounces',
];

describe('subscribers', () => {
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

  const create = (body: object) =>
    request(api.server).post('/v1/subscribers').set('Authorization', auth).send(body);
  const patch = (id: string, body: object) =>
    request(api.server).patch(`/v1/subscribers/${id}`).set('Authorization', auth).send(body);
  const get = (id: string) =>
    request(api.server).get(`/v1/subscribers/${id}`).set('Authorization', auth);

  it('creates a subscriber with every field and returns it with 201', async () => {
    const response = await create(FULL).expect(201);
    expect(response.body).toMatchObject(FULL);
    expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(response.body.created_at)).not.toBeNaN();
    expect(Date.parse(response.body.updated_at)).not.toBeNaN();
    expect(Object.keys(response.body.statistics).sort()).toEqual(STATISTICS_KEYS);
    expect(response.body.statistics).toMatchObject({ sent: 0, delivered: 0, revenue_cents: 0 });
    const fetched = await get(response.body.id).expect(200);
    expect(fetched.body).toEqual(response.body);
  });

  it('defaults status to subscribed and lists to empty', async () => {
    const response = await create({ email: 'min@example.com' }).expect(201);
    expect(response.body).toMatchObject({
      status: 'subscribed',
      tags: [],
      interests: [],
      custom_fields: {},
      social_media: [],
      first_name: null,
    });
  });

  it('answers 422 already_exists, one detail, for an email that exists in any case', async () => {
    await create({ email: 'twice@example.com' }).expect(201);
    for (const email of ['twice@example.com', 'TWICE@example.com', '  Twice@Example.COM ']) {
      const response = await create({ email, first_name: 'Again' });
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.details).toEqual([
        { field: 'email', code: 'already_exists', message: expect.any(String) },
      ]);
    }
    const rows = await env.sql(
      "SELECT id FROM subscribers WHERE email_normalized = 'twice@example.com'",
    );
    expect(rows).toHaveLength(1);
  });

  it('creates exactly one subscriber under concurrent creates of one email', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => create({ email: 'race@example.com' })),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
  });

  it('lets the same email exist in two accounts', async () => {
    const other = await api.tenant('Other');
    await create({ email: 'shared@example.com' }).expect(201);
    await request(api.server)
      .post('/v1/subscribers')
      .set('Authorization', other.auth)
      .send({ email: 'shared@example.com' })
      .expect(201);
  });

  it('patches only the fields sent and answers 200', async () => {
    const { body: created } = await create({ ...FULL, email: 'patch@example.com' }).expect(201);
    const response = await patch(created.id, { first_name: 'Augusta', tags: ['vip'] }).expect(200);
    expect(response.body).toMatchObject({
      ...FULL,
      email: 'patch@example.com',
      first_name: 'Augusta',
      tags: ['vip'],
    });
    expect(Date.parse(response.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(created.updated_at),
    );
    expect(response.body.created_at).toBe(created.created_at);
  });

  it('clears optional fields sent as null', async () => {
    const { body: created } = await create({ ...FULL, email: 'clear@example.com' }).expect(201);
    const response = await patch(created.id, {
      first_name: null,
      birthdate: null,
      tags: null,
      custom_fields: null,
    }).expect(200);
    expect(response.body).toMatchObject({
      first_name: null,
      birthdate: null,
      tags: [],
      custom_fields: {},
    });
  });

  it('accepts an empty PATCH and the read-only fields it returned', async () => {
    const { body: created } = await create({ email: 'echo@example.com' }).expect(201);
    await patch(created.id, {}).expect(200);
    const { body: echoed } = await patch(created.id, created).expect(200);
    expect(echoed.id).toBe(created.id);
    expect(echoed.created_at).toBe(created.created_at);
    expect(echoed.statistics).toEqual(created.statistics);
  });

  it('changes the email, and refuses one that another subscriber has', async () => {
    await create({ email: 'taken@example.com' }).expect(201);
    const { body: created } = await create({ email: 'mover@example.com' }).expect(201);
    const conflict = await patch(created.id, { email: 'TAKEN@example.com' }).expect(422);
    expect(conflict.body.error.details).toEqual([
      { field: 'email', code: 'already_exists', message: expect.any(String) },
    ]);
    const moved = await patch(created.id, { email: 'moved@example.com' }).expect(200);
    expect(moved.body.email).toBe('moved@example.com');
    await patch(created.id, { email: 'MOVED@example.com' }).expect(200);
  });

  it('answers 422 for bad values and writes nothing', async () => {
    const { body: created } = await create({ email: 'strict@example.com', city: 'Paris' }).expect(
      201,
    );
    const response = await patch(created.id, { city: 'Lyon', email: null, status: '' }).expect(422);
    const details = response.body.error.details as { field: string }[];
    expect(details.map((detail) => detail.field).sort()).toEqual(['email', 'status']);
    expect((await get(created.id)).body.city).toBe('Paris');
  });

  it('answers 422 for a social_media item of the wrong type', async () => {
    const response = await create({ email: 'social@example.com', social_media: ['@ada'] }).expect(
      422,
    );
    expect(response.body.error.details[0].field).toMatch(/^social_media/);
  });

  it('keeps free-form request statistics without touching the counters', async () => {
    const { body } = await create({
      email: 'stats@example.com',
      statistics: { imported_opens: 12, source: 'mailchimp' },
    }).expect(201);
    expect(body.statistics.opens).toBe(0);
    const [row] = await env.sql<{ imported_stats: object }>(
      'SELECT imported_stats FROM subscribers WHERE id = $1',
      [body.id],
    );
    expect(row.imported_stats).toEqual({ imported_opens: 12, source: 'mailchimp' });
  });

  it('refuses a PATCH whose statistics, merged with those kept, would pass the limits', async () => {
    const keys = (from: number, count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${from + i}`, i]));
    const { body } = await create({ email: 'grow@example.com', statistics: keys(0, 60) }).expect(
      201,
    );
    const refused = await patch(body.id, { statistics: keys(60, 60) }).expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ field: 'statistics', code: 'too_many_keys' }),
    ]);
    // Nothing was written; a PATCH that stays within the limits still merges.
    await patch(body.id, { statistics: keys(60, 40) }).expect(200);
    const [row] = await env.sql<{ imported_stats: object }>(
      'SELECT imported_stats FROM subscribers WHERE id = $1',
      [body.id],
    );
    expect(Object.keys(row.imported_stats)).toHaveLength(100);
  });

  it('answers 404 not_found for an unknown or malformed id', async () => {
    for (const id of ['01900000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const fetched = await get(id).expect(404);
      expect(fetched.body.error.code).toBe('not_found');
      await patch(id, { first_name: 'Nobody' }).expect(404);
    }
  });
});
