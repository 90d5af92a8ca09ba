import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';

/** Opening the server's address in a browser leads to the dashboard. */
describe('GET /', () => {
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env, { workers: false });
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  it('redirects to /dashboard, without a session', async () => {
    const response = await request(api.server).get('/').expect(302);
    expect(response.headers.location).toBe('/dashboard');
    await request(api.server).get('/dashboard').expect(200);
  });

  it('leaves other unknown paths a 404', async () => {
    await request(api.server).get('/nothing-here').expect(404);
  });
});
