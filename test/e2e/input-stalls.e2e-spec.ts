import { AddressInfo } from 'node:net';
import { MAX_EXPRESSIONS } from '../../src/templates/template-renderer';
import { stallOf } from '../support/cpu-time';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/** The longest /health may take while a hostile request is being handled. */
const HEALTH_BUDGET_MS = 500;

/**
 * Inputs that used to stall every request (the event loop busy for seconds on one body):
 * each is sent while /health is probed over its own connections, and /health must keep
 * answering within HEALTH_BUDGET_MS from before the hostile request starts until after its
 * answer (or, for a send, until the message is out).
 */
describe('hostile inputs do not stall the service', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let base: string;
  let auth: string;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://herald.test',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
      // The sink is a relay, so From is checked; these tests are about templates and links, not domains.
      ALLOW_UNVERIFIED_FROM: '1',
    });
    api = await TestApi.start(env);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    ({ auth } = await api.tenant());
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  /**
   * Runs `hostile` while probing /health back to back (a new probe 20 ms after each answer),
   * and returns its result with the slowest probe. At least one probe is always in flight
   * during `hostile`: it starts only once the first probe has answered.
   * Herald runs in this process: a probe counts for the stall it saw (see stallOf), not for
   * the time it waited for a core on a loaded machine.
   */
  async function whileProbingHealth<T>(hostile: () => Promise<T>) {
    const latencies: number[] = [];
    let running = true;
    let firstAnswer: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (firstAnswer = resolve));
    // One probe per check of waitFor, every 20 ms, until the hostile work is over.
    const prober = waitFor(
      async () => {
        const { result: response, ms } = await stallOf(async () => {
          const answer = await fetch(`${base}/health`);
          await answer.text();
          return answer;
        });
        latencies.push(ms);
        expect(response.status).toBe(200);
        firstAnswer();
        return !running;
      },
      { intervalMs: 20, timeoutMs: 300_000 },
    );
    await started;
    const probesBefore = latencies.length;
    const result = await hostile();
    await waitFor(() => latencies.length > probesBefore + 1, { intervalMs: 5 });
    running = false;
    await prober;
    return { result, slowest: Math.max(...latencies), probes: latencies.length };
  }

  async function send(method: string, path: string, body: string, headers = {}) {
    const response = await fetch(`${base}${path}`, {
      method,
      body,
      headers: { authorization: auth, 'content-type': 'application/json', ...headers },
    });
    return { status: response.status, body: (await response.json()) as Envelope };
  }

  it('an 80 KB campaign `from` (the address regex backtracked for 8 s)', async () => {
    const from = `a@${'a.'.repeat(40_000)} `;
    const campaign = JSON.stringify({ name: 'x', subject: 's', html: '<p>x</p>', from });
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/v1/campaigns', campaign),
    );
    expect(result.status).toBe(422);
    expect(result.body.error.details).toEqual([
      { field: 'from', code: 'invalid_format', message: expect.any(String) },
    ]);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('an 80 KB transactional `from`, same parser', async () => {
    const from = `${'"'.repeat(80_000)}<a@b.test>`;
    const message = JSON.stringify({ to: 'ada@example.com', from, subject: 's', text: 'x' });
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/v1/transactional/send', message),
    );
    expect(result.status).toBe(422);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('an 80 KB template (Handlebars compiled it for seconds on the request thread)', async () => {
    const line = '<p>Hello {{first_name}}, this is line of the newsletter.</p>\n';
    const html = line.repeat(Math.ceil((80 * 1024) / line.length));
    expect(html.length).toBeGreaterThanOrEqual(80 * 1024);
    const template = JSON.stringify({ name: 'Big', subject: 'Hi {{first_name}}', html });
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/v1/templates', template),
    );
    expect(result.status).toBe(201);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('a template with more merge fields than the limit is refused at once', async () => {
    const html = '{{a}}'.repeat(MAX_EXPRESSIONS + 1);
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/v1/templates', JSON.stringify({ name: 'Dense', subject: 's', html })),
    );
    expect(result.status).toBe(422);
    expect(result.body.error.details).toEqual([
      { field: 'html', code: 'too_complex', message: expect.any(String) },
    ]);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('a template that loops over a loop at preview is stopped, with a 422', async () => {
    const text = '{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}x{{/each}}{{/each}}{{/each}}';
    const created = await send(
      'POST',
      '/v1/templates',
      JSON.stringify({ name: 'Loops', subject: 's', text }),
    );
    expect(created.status).toBe(201);
    const id = (created.body as unknown as { id: string }).id;
    const data = { a: Array.from({ length: 2000 }, (_, i) => i) };
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', `/v1/templates/${id}/preview`, JSON.stringify({ data })),
    );
    expect(result.status).toBe(422);
    expect(result.body.error.details).toEqual([
      { field: 'text', code: 'render_failed', message: expect.any(String) },
    ]);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('a 1 MB sign-in body of 60,000 keys, unauthenticated', async () => {
    const keys: Record<string, number> = {};
    for (let i = 0; i < 60_000; i++) keys[`key${i}`] = i;
    const body = JSON.stringify({ email: 'a@b.test', password: 'x', ...keys });
    expect(body.length).toBeGreaterThan(900_000);
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/dashboard/api/signin', body, { authorization: '' }),
    );
    expect(result.status).toBe(400);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('a 1 MB sign-in body of 100,000 keys spread under the per-object cap', async () => {
    const objects: Record<string, Record<string, number>> = {};
    for (let o = 0; o < 99; o++) {
      objects[`o${o}`] = Object.fromEntries(Array.from({ length: 990 }, (_, k) => [`k${k}`, k]));
    }
    const body = JSON.stringify({ email: 'a@b.test', password: 'x', ...objects });
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/dashboard/api/signin', body, { authorization: '' }),
    );
    expect([400, 403, 422]).toContain(result.status);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('JSON nested 100,000 deep (a RangeError and a 500 before)', async () => {
    const depth = 100_000;
    const body = `{"email":"deep@example.com","custom_fields":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const { result, slowest } = await whileProbingHealth(() =>
      send('POST', '/v1/subscribers', body),
    );
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/nested deeper than 32/);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });

  it('a campaign with 15,000 malformed links and 4,000 real ones, tracked at send time', async () => {
    // Quotes that do not match made the old link regex scan to the end for each link.
    const html =
      '<html><body>' +
      `<a href="http://x'`.repeat(15_000) +
      '"><a href="https://acme.test/offer">offer</a>'.repeat(4_000) +
      '</body></html>';
    expect(html.length).toBeLessThan(512 * 1024);
    await send('POST', '/v1/subscribers', JSON.stringify({ email: 'links@stall.test' }));
    const created = await send(
      'POST',
      '/v1/campaigns',
      JSON.stringify({ name: 'Links', subject: 's', from: 'news@acme.test', html }),
    );
    expect(created.status).toBe(201);
    const id = (created.body as unknown as { id: string }).id;
    const { result, slowest, probes } = await whileProbingHealth(async () => {
      const sent = await fetch(`${base}/v1/campaigns/${id}/send`, {
        method: 'POST',
        headers: { authorization: auth },
      });
      await waitFor(() => sink.messages.some((m) => m.to.includes('links@stall.test')), {
        timeoutMs: 60_000,
      });
      return sent;
    });
    expect(result.status).toBe(202);
    const message = sink.messages.find((m) => m.to.includes('links@stall.test'))!;
    expect(message.body).toContain('https://herald.test/t/click/');
    expect(probes).toBeGreaterThan(2);
    expect(slowest).toBeLessThan(HEALTH_BUDGET_MS);
  });
});

interface Envelope {
  error: { code: string; message: string; details: { field: string; code: string }[] };
}
