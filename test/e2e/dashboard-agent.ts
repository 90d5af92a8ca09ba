import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { TestApi } from '../support/test-env';

export const PASSWORD = 'correct horse battery staple';

/**
 * A browser stand-in for the dashboard API: keeps cookies like a browser (supertest's agent)
 * and sends the CSRF token the session probe hands out, as the dashboard's own client does.
 */
export class DashboardAgent {
  readonly http: TestAgent;
  csrf = '';

  constructor(readonly api: TestApi) {
    this.http = request.agent(api.server);
  }

  /** GET /dashboard/api/session: who is signed in, and a fresh CSRF token. */
  async probe() {
    const response = await this.http.get('/dashboard/api/session').expect(200);
    this.csrf = response.body.csrf_token;
    return response;
  }

  post(path: string, body: object = {}) {
    return this.http.post(path).set('X-CSRF-Token', this.csrf).send(body);
  }

  patch(path: string, body: object) {
    return this.http.patch(path).set('X-CSRF-Token', this.csrf).send(body);
  }

  delete(path: string) {
    return this.http.delete(path).set('X-CSRF-Token', this.csrf);
  }

  get(path: string) {
    return this.http.get(path);
  }

  async signUp(email: string, accountName = 'Acme', password = PASSWORD) {
    await this.probe();
    const response = await this.post('/dashboard/api/signup', {
      account_name: accountName,
      name: 'Ada',
      email,
      password,
    });
    if (response.status !== 201) throw new Error(`sign-up: ${response.status} ${response.text}`);
    this.csrf = response.body.csrf_token;
    return response;
  }

  async signIn(email: string, password = PASSWORD) {
    await this.probe();
    const response = await this.post('/dashboard/api/signin', { email, password });
    if (response.status === 200) this.csrf = response.body.csrf_token;
    return response;
  }
}
