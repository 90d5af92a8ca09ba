import request from 'supertest';
import { newId } from '../../src/platform/crypto/ids';
import { TestApi, TestEnv } from '../support/test-env';

/** List endpoints: cursor pagination, limit clamped, 400 for bad input. */
describe('pagination', () => {
  let env: TestEnv;
  let api: TestApi;
  let tenant: { accountId: string; auth: string };
  let other: { accountId: string; auth: string };
  const TOTAL = 130;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    tenant = await api.tenant('Paged');
    other = await api.tenant('Other');
    const start = Date.now() - TOTAL * 10;
    await api.prisma.subscriber.createMany({
      data: Array.from({ length: TOTAL }, (_, i) => ({
        id: newId(start + i * 10),
        accountId: tenant.accountId,
        email: `reader${i}@example.com`,
        emailNormalized: `reader${i}@example.com`,
      })),
    });
    await api.prisma.subscriber.create({
      data: {
        id: newId(),
        accountId: other.accountId,
        email: 'x@example.com',
        emailNormalized: 'x@example.com',
      },
    });
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const list = (query: string, auth = tenant.auth, path = '/v1/subscribers') =>
    request(api.server).get(`${path}${query}`).set('Authorization', auth);

  it('returns 25 by default, newest first, with data and next_cursor only', async () => {
    const response = await list('').expect(200);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'next_cursor']);
    expect(response.body.data).toHaveLength(25);
    expect(response.body.data[0].email).toBe(`reader${TOTAL - 1}@example.com`);
    expect(typeof response.body.next_cursor).toBe('string');
  });

  it.each([
    ['0', 1],
    ['-3', 1],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['99999', 100],
  ])('clamps limit=%s to %i', async (limit, expected) => {
    const response = await list(`?limit=${limit}`).expect(200);
    expect(response.body.data).toHaveLength(expected);
  });

  it.each(['abc', '', '1x', 'NaN'])('answers 400 to limit=%p', async (limit) => {
    const response = await list(`?limit=${limit}`).expect(400);
    expect(response.body.error.code).toBe('invalid_request');
  });

  it('walks every row exactly once and ends with next_cursor null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await list(query).expect(200);
      seen.push(...(response.body.data as { email: string }[]).map((row) => row.email));
      cursor = response.body.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(TOTAL);
    expect(new Set(seen).size).toBe(TOTAL);
  });

  it('returns next_cursor null when the page is exactly the rest', async () => {
    const first = await list('?limit=100').expect(200);
    const rest = await list(
      `?limit=30&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    ).expect(200);
    expect(rest.body.data).toHaveLength(30);
    expect(rest.body.next_cursor).toBeNull();
  });

  it('answers 400 to a cursor that cannot be decoded', async () => {
    for (const cursor of ['garbage', 'a.b', '....', '%00', 'x'.repeat(600)]) {
      const response = await list(`?cursor=${encodeURIComponent(cursor)}`);
      expect({ cursor, status: response.status }).toEqual({ cursor, status: 400 });
      expect(response.body.error.code).toBe('invalid_request');
    }
  });

  it('answers 400 to a tampered cursor', async () => {
    const { body } = await list('?limit=5').expect(200);
    const [payload, signature] = (body.next_cursor as string).split('.');
    const otherId = Buffer.from(newId()).toString('base64url');
    await list(`?cursor=${otherId}.${signature}`).expect(400);
    await list(`?cursor=${payload}.${signature.slice(0, -2)}AA`).expect(400);
  });

  it('answers 400 to a cursor that belongs to another account', async () => {
    const { body } = await list('?limit=5').expect(200);
    const response = await list(`?cursor=${encodeURIComponent(body.next_cursor)}`, other.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
  });

  it('answers 400 to a cursor issued by another list', async () => {
    const { body } = await list('?limit=5').expect(200);
    const cursor = encodeURIComponent(body.next_cursor);
    await list(`?cursor=${cursor}`, tenant.auth, '/v1/templates').expect(400);
  });

  it.each(['/v1/segments', '/v1/campaigns', '/v1/templates'])(
    'pages %s the same way',
    async (path) => {
      const response = await list('?limit=500', tenant.auth, path).expect(200);
      expect(Object.keys(response.body).sort()).toEqual(['data', 'next_cursor']);
      expect(Array.isArray(response.body.data)).toBe(true);
      await list('?limit=many', tenant.auth, path).expect(400);
      await list('?cursor=bogus', tenant.auth, path).expect(400);
    },
  );
});
