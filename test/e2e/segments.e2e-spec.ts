import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';

describe('segments (e2e)', () => {
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
  const vipsInGb = {
    and: [
      { field: 'tags', op: 'contains', value: 'vip' },
      { field: 'country_code', op: 'eq', value: 'GB' },
    ],
  };
  const createSegment = (body: object, key = auth) =>
    http().post('/v1/segments').set('Authorization', key).send(body);
  const subscribe = async (body: object, key = auth) => {
    const response = await http().post('/v1/subscribers').set('Authorization', key).send(body);
    expect(response.status).toBe(201);
    return response.body as { id: string };
  };
  const countOf = async (id: string, key = auth): Promise<number> => {
    const response = await http().get(`/v1/segments/${id}`).set('Authorization', key);
    expect(response.status).toBe(200);
    return response.body.count as number;
  };

  it('creates, reads, updates and deletes a segment', async () => {
    const created = await createSegment({ name: 'VIPs in GB', filter: vipsInGb });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'VIPs in GB',
      filter: vipsInGb,
      count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const { id } = created.body;

    const read = await http().get(`/v1/segments/${id}`).set('Authorization', auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const renamed = await http()
      .patch(`/v1/segments/${id}`)
      .set('Authorization', auth)
      .send({ name: 'Everyone' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Everyone', filter: vipsInGb });

    const refiltered = await http()
      .patch(`/v1/segments/${id}`)
      .set('Authorization', auth)
      .send({ filter: {} });
    expect(refiltered.status).toBe(200);
    expect(refiltered.body).toMatchObject({ id, name: 'Everyone', filter: {} });

    const deleted = await http().delete(`/v1/segments/${id}`).set('Authorization', auth);
    expect(deleted.status).toBe(204);
    const gone = await http().get(`/v1/segments/${id}`).set('Authorization', auth);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
  });

  describe('count', () => {
    let tenant: { auth: string; accountId: string };

    beforeAll(async () => {
      tenant = await api.tenant('Counted');
      const people = [
        { email: 'a@example.com', country_code: 'GB', tags: ['vip', 'beta'] },
        {
          email: 'b@example.com',
          country_code: 'GB',
          tags: ['vip'],
          custom_fields: { plan: 'pro' },
        },
        { email: 'c@example.com', country_code: 'GB', tags: ['vip'], custom_fields: { plan: 5 } },
        { email: 'd@example.com', country_code: 'FR', tags: ['vip'], first_name: "O'Brien" },
        { email: 'e@example.com', country_code: 'GB', tags: [] },
      ];
      for (const person of people) await subscribe(person, tenant.auth);
      // Someone else's subscriber that would match: never counted here.
      await subscribe({ email: 'x@example.com', country_code: 'GB', tags: ['vip'] });
    });

    const count = async (filter: object) => {
      const created = await createSegment({ name: 'count', filter }, tenant.auth);
      expect(created.status).toBe(201);
      expect(await countOf(created.body.id, tenant.auth)).toBe(created.body.count);
      return created.body.count as number;
    };

    it('counts the subscribers that match, in this account only', async () => {
      expect(await count(vipsInGb)).toBe(3);
      expect(await count({})).toBe(5);
    });

    it.each([
      [{ field: 'country_code', op: 'neq', value: 'GB' }, 1],
      [{ field: 'country_code', op: 'in', value: ['FR', 'DE'] }, 1],
      [{ field: 'country_code', op: 'not_in', value: ['FR'] }, 4],
      [{ field: 'tags', op: 'in', value: ['beta', 'nope'] }, 1],
      [{ field: 'tags', op: 'not_contains', value: 'vip' }, 1],
      [{ field: 'tags', op: 'not_exists' }, 1],
      [{ field: 'email', op: 'eq', value: 'A@Example.com' }, 1],
      [{ field: 'first_name', op: 'eq', value: "O'Brien" }, 1],
      [{ field: 'first_name', op: 'exists' }, 1],
      [{ field: 'custom_fields.plan', op: 'eq', value: 'pro' }, 1],
      [{ field: 'custom_fields.plan', op: 'in', value: ['pro', 5] }, 2],
      [{ field: 'custom_fields.plan', op: 'exists' }, 2],
      [{ field: 'custom_fields.plan', op: 'neq', value: 'pro' }, 4],
      [{ field: 'created_at', op: 'after', value: '2000-01-01' }, 5],
      [{ field: 'created_at', op: 'before', value: '2000-01-01T00:00:00Z' }, 0],
      [{ field: 'birthdate', op: 'not_exists' }, 5],
      [
        {
          or: [
            { field: 'country_code', op: 'eq', value: 'FR' },
            { field: 'tags', op: 'contains', value: 'beta' },
          ],
        },
        2,
      ],
    ])('%j matches %i', async (filter, expected) => {
      expect(await count(filter)).toBe(expected);
    });

    it('treats hostile values as data', async () => {
      const rows = async () => (await env.sql('SELECT id FROM subscribers')).length;
      const before = await rows();
      const evil = "GB' OR '1'='1";
      expect(await count({ field: 'country_code', op: 'eq', value: evil })).toBe(0);
      expect(await count({ field: "custom_fields.plan') OR TRUE --", op: 'exists' })).toBe(0);
      expect(await count({ field: 'tags', op: 'contains', value: "vip'] OR TRUE --" })).toBe(0);
      expect(await rows()).toBe(before);
    });

    it('no longer counts an erased subscriber', async () => {
      const segment = await createSegment({ name: 'vips', filter: vipsInGb }, tenant.auth);
      expect(segment.body.count).toBe(3);
      const erased = await http()
        .post('/v1/erasures')
        .set('Authorization', tenant.auth)
        .send({ email: 'b@example.com' });
      expect(erased.status).toBe(200);
      expect(await countOf(segment.body.id, tenant.auth)).toBe(2);
    });
  });

  it('scrubs an erased email from segment filters, keeping the audience', async () => {
    const tenant = await api.tenant('Scrubbed');
    await subscribe({ email: 'keep@example.com' }, tenant.auth);
    await subscribe({ email: 'gone@example.com' }, tenant.auth);
    const filter = { field: 'email', op: 'in', value: ['keep@example.com', 'Gone@example.com'] };
    const segment = await createSegment({ name: 'named', filter }, tenant.auth);
    expect(segment.body.count).toBe(2);

    await http()
      .post('/v1/erasures')
      .set('Authorization', tenant.auth)
      .send({ email: 'gone@example.com' })
      .expect(200);
    const read = await http()
      .get(`/v1/segments/${segment.body.id}`)
      .set('Authorization', tenant.auth);
    expect(read.body.count).toBe(1);
    expect(JSON.stringify(read.body.filter)).not.toMatch(/gone@/i);
    expect(read.body.filter.value).toEqual(['keep@example.com', expect.stringMatching(/^erased:/)]);
  });

  describe('validation', () => {
    const rejected = async (filter: unknown) => {
      const response = await createSegment({ name: 'bad', filter });
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('validation_failed');
      return response.body.error.details as { field: string; code: string }[];
    };

    it.each([
      [
        { field: 'email; drop table subscribers', op: 'eq', value: 'x' },
        'filter.field',
        'unknown_field',
      ],
      [
        { and: [{}, { field: 'city', op: 'like', value: 'x' }] },
        'filter.and[1].op',
        'unknown_operator',
      ],
      [{ field: 'tags', op: 'eq', value: 'x' }, 'filter.op', 'unsupported_operator'],
      [{ field: 'city', op: 'in', value: 'London' }, 'filter.value', 'invalid_value'],
      [{ field: 'created_at', op: 'after', value: 'last week' }, 'filter.value', 'invalid_value'],
      ['everyone', 'filter', 'invalid_type'],
    ])('answers 422 for %j at the path inside the filter', async (filter, field, code) => {
      expect(await rejected(filter)).toEqual([expect.objectContaining({ field, code })]);
    });

    it('answers 422 for a PATCH with a bad filter, and keeps the segment', async () => {
      const created = await createSegment({ name: 'ok', filter: vipsInGb });
      const response = await http()
        .patch(`/v1/segments/${created.body.id}`)
        .set('Authorization', auth)
        .send({ filter: { or: [{ field: 'nope', op: 'eq', value: 1 }] } });
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        expect.objectContaining({ field: 'filter.or[0].field', code: 'unknown_field' }),
      ]);
      const read = await http().get(`/v1/segments/${created.body.id}`).set('Authorization', auth);
      expect(read.body.filter).toEqual(vipsInGb);
    });

    it.each([
      [{ filter: {} }, 'name'],
      [{ name: 'no filter' }, 'filter'],
    ])('answers 400 when a required field is missing (%j lacks %s)', async (body, _field) => {
      const response = await createSegment(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
    });
  });

  describe('ids of other accounts and unknown ids', () => {
    let theirId: string;

    beforeAll(async () => {
      const other = await api.tenant('Other');
      theirId = (await createSegment({ name: 'theirs', filter: {} }, other.auth)).body.id;
    });

    it.each([
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ])('answers 404 to %s', async (method, body) => {
      for (const id of [theirId, '01900000-0000-7000-8000-000000000000', 'nope']) {
        const call = http()[method.toLowerCase() as 'get' | 'patch' | 'delete'](
          `/v1/segments/${id}`,
        );
        const response = await call.set('Authorization', auth).send(body);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
    });
  });

  it('keeps a segment that an unsent campaign uses (409), and deletes it once sent', async () => {
    const segment = await createSegment({ name: 'used', filter: vipsInGb });
    const { id: campaignId } = await api.make.campaign(accountId, {
      name: 'Spring',
      subject: 'Hi',
      fromAddress: 'news@example.com',
      segmentId: segment.body.id,
      html: null,
      text: null,
    });
    const refused = await http()
      .delete(`/v1/segments/${segment.body.id}`)
      .set('Authorization', auth);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');

    await api.prisma.campaign.update({ where: { id: campaignId }, data: { status: 'sent' } });
    const deleted = await http()
      .delete(`/v1/segments/${segment.body.id}`)
      .set('Authorization', auth);
    expect(deleted.status).toBe(204);
  });

  it('needs segments:write for writes', async () => {
    const { key } = await api.key(accountId, ['segments:read']);
    const readOnly = `Bearer ${key}`;
    const id = (await createSegment({ name: 'mine', filter: {} })).body.id;
    const attempts = [
      http().post('/v1/segments').send({ name: 'x', filter: {} }),
      http().patch(`/v1/segments/${id}`).send({ name: 'x' }),
      http().delete(`/v1/segments/${id}`),
    ];
    for (const attempt of attempts) {
      const response = await attempt.set('Authorization', readOnly);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('insufficient_scope');
    }
    expect(await countOf(id, readOnly)).toBeGreaterThanOrEqual(0);
  });

  it('pages newest first by cursor', async () => {
    const tenant = await api.tenant('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createSegment({ name: `S${i}`, filter: {} }, tenant.auth)).body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor ? { cursor } : {}) };
      const page = await http().get('/v1/segments').query(query).set('Authorization', tenant.auth);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.data as { id: string }[]).map((s) => s.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });
});
