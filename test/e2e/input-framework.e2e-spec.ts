import { Socket, AddressInfo, connect } from 'node:net';
import request from 'supertest';
import { RecipientTokens } from '../../src/message-refs/recipient-token';
import { newId } from '../../src/platform/crypto/ids';
import { parseAccountId } from '../../src/platform/database/account-id';
import { TestApi, TestEnv } from '../support/test-env';

/**
 * What the router, the body parsers and Node's HTTP parser meet before any handler runs:
 * answered in the error envelope with one of the eight statuses, like everything else.
 */
describe('framework-level input', () => {
  let env: TestEnv;
  let api: TestApi;
  let auth: string;
  let accountId: string;
  let port: number;

  beforeAll(async () => {
    env = await TestEnv.create({ RATE_LIMIT: '100000' });
    api = await TestApi.start(env, { workers: false });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = (api.app.getHttpServer().address() as AddressInfo).port;
    ({ auth, accountId } = await api.tenant());
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  function expectEnvelope(response: request.Response, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      error: { code, message: expect.any(String), details: expect.any(Array) },
    });
  }

  /** Raw bytes on a socket, for requests no HTTP client would send. */
  function raw(bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket: Socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  function parseRaw(answer: string) {
    const [head, body] = answer.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) as unknown };
  }

  it('answers a URL that cannot be decoded with 400', async () => {
    const response = await request(api.server)
      .get('/v1/subscribers/%E0%A4%A')
      .set('Authorization', auth);
    expectEnvelope(response, 400, 'invalid_request');
  });

  it('answers an id longer than any Herald issues with 404, not 414', async () => {
    const response = await request(api.server)
      .get(`/v1/subscribers/${'a'.repeat(300)}`)
      .set('Authorization', auth);
    expectEnvelope(response, 404, 'not_found');
  });

  it('answers NUL in a path parameter with 404 and in a query parameter with 400', async () => {
    expectEnvelope(
      await request(api.server).get('/v1/subscribers/a%00b').set('Authorization', auth),
      404,
      'not_found',
    );
    expectEnvelope(
      await request(api.server).get('/v1/subscribers?cursor=a%00b').set('Authorization', auth),
      400,
      'invalid_request',
    );
    expectEnvelope(
      await request(api.server).get('/v1/subscribers?cursor=%ED%A0%80').set('Authorization', auth),
      400,
      'invalid_request',
    );
  });

  it('answers oversized headers with a 400 envelope (not 431)', async () => {
    const answer = parseRaw(
      await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(400);
    expect(answer.head).toMatch(/content-type: application\/json/i);
    expect(answer.body).toEqual({
      error: { code: 'invalid_request', message: expect.any(String), details: [] },
    });
  });

  it('answers a request that is not HTTP with a 400 envelope', async () => {
    for (const bytes of ['BLAH\r\n\r\n', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']) {
      const answer = parseRaw(await raw(bytes));
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });

  it('answers HEAD on a GET route as the GET, without a body', async () => {
    const get = await request(api.server).get('/v1/subscribers').set('Authorization', auth);
    const head = await request(api.server).head('/v1/subscribers').set('Authorization', auth);
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    const unauthenticated = await request(api.server).head('/v1/subscribers');
    expect(unauthenticated.status).toBe(401);
  });

  it.each([
    ['a form', 'application/x-www-form-urlencoded', 'email=a%40example.com'],
    ['multipart', 'multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
    ['text', 'text/plain', '{"email":"a@example.com"}'],
    ['a JSON dialect', 'application/merge-patch+json', '{"email":"a@example.com"}'],
  ])('refuses %s on /v1 with 400', async (_, contentType, body) => {
    const response = await request(api.server)
      .post('/v1/subscribers')
      .set('Authorization', auth)
      .set('Content-Type', contentType)
      .send(body);
    expectEnvelope(response, 400, 'invalid_request');
    expect(response.body.error.message).toMatch(/application\/json/);
  });

  it('refuses a body without a Content-Type on /dashboard/api with 400', async () => {
    const answer = parseRaw(
      await raw(
        'POST /dashboard/api/signin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n' +
          'Content-Length: 2\r\n\r\n{}',
      ),
    );
    expect(answer.status).toBe(400);
  });

  it('still takes the form a one-click unsubscribe posts', async () => {
    const response = await request(api.server)
      .post('/unsubscribe/not-a-token')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=One-Click');
    expect(response.status).toBe(404);
  });

  it('refuses JSON nested deeper than 32 and objects of over 1,000 keys with 400', async () => {
    const deep = `{"email":"a@example.com","custom_fields":${'['.repeat(40)}${']'.repeat(40)}}`;
    const wide = JSON.stringify({
      email: 'a@example.com',
      custom_fields: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])),
    });
    for (const body of [deep, wide]) {
      const response = await request(api.server)
        .post('/v1/subscribers')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .send(body);
      expectEnvelope(response, 400, 'invalid_request');
    }
  });

  it('redirects a click to a non-Latin-1 target in its encoded form', async () => {
    const tokens = api.app.get(RecipientTokens);
    const token = tokens.issue('track', {
      accountId: parseAccountId(accountId),
      subscriberId: newId(),
      campaignId: newId(),
    });
    const target = 'https://bücher.example/中文?q=é';
    const response = await request(api.server)
      .get(`/t/click/${token}`)
      .query({ u: target, s: tokens.signValue(token, target) });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(
      'https://xn--bcher-kva.example/%E4%B8%AD%E6%96%87?q=%C3%A9',
    );
  });
});
