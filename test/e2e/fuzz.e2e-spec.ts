import { Agent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { probeHealthDuring } from '../support/health-probe';
import { HeraldProcess } from '../support/herald-process';
import { freePort, processEnv, waitForOk } from '../support/processes';
import { TestApi, TestEnv } from '../support/test-env';

/**
 * Every route the app serves (read from its router, so a new route is fuzzed without being
 * listed here), sent generated bad input: wrong types, NUL and unpaired surrogates, huge and
 * deep values, bad dates, bad percent-encoding, wrong content types, bad ids and tokens.
 * Each answer must be a success or one of the eight error statuses in the error envelope
 * (pages for people outside the APIs may answer an error as an HTML page), never a 5xx;
 * /health, probed throughout, must answer within 500 ms beyond an idle server's time.
 *
 * Seeded and reproducible: the seed is printed; FUZZ_SEED=<seed> replays the same requests
 * (each request is generated from the seed and its index, whatever the concurrency), and
 * FUZZ_REQUESTS sets how many are sent.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5200);
const CONCURRENCY = 4;
const HEALTH_BUDGET_MS = 500;
const ERROR_STATUSES = new Set([400, 401, 403, 404, 409, 422, 429, 500]);
const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'invalid_credential',
  403: 'insufficient_scope',
  404: 'not_found',
  409: 'conflict',
  422: 'validation_failed',
  429: 'rate_limited',
};

describe(`fuzzing every route (seed ${SEED})`, () => {
  let env: TestEnv;
  /** In this process: its router lists the routes. */
  let api: TestApi;
  /** The API under fuzz, in a process of its own, so /health times only its own event loop. */
  let herald: HeraldProcess;
  let bearer: string;
  let session: { cookie: string; csrf: string };
  const ids: string[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  beforeAll(async () => {
    console.log(`fuzz seed ${SEED}: FUZZ_SEED=${SEED} replays this run`);
    const limits = {
      RATE_LIMIT: '1000000',
      RATE_LIMIT_SEND: '1000000',
      PUBLIC_URL: 'https://herald.test',
    };
    env = await TestEnv.create(limits);
    api = await TestApi.start(env, { workers: false });
    port = await freePort();
    herald = HeraldProcess.start(
      'api',
      'fuzzed',
      processEnv(env, { ...limits, PORT: String(port) }),
    );
    await waitForOk(`http://127.0.0.1:${port}/health`, 120_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${herald.tail()}`);
    });
    bearer = (await api.tenant('Fuzz')).auth;
    session = await signUp();
    await seedEntities();
  });
  afterAll(async () => {
    agent.destroy();
    await herald?.stop();
    await api?.close();
    await env?.dispose();
  });

  it(`answers ${REQUESTS} generated bad requests within the envelope, never a 5xx`, async () => {
    const routes = servedRoutes();
    expect(routes.length).toBeGreaterThan(30);
    const failures: string[] = [];
    // One example of each kind of failure (route, status, problem) is enough to act on.
    const failureKinds = new Set<string>();
    const statuses = new Map<number, number>();

    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const index = next++;
        const fuzzed = generate(new Random(SEED, index), routes);
        const response = await send(fuzzed, agent).catch((error: Error): Answer => ({
          status: 0,
          headers: {},
          text: `no answer: ${error.message}`,
        }));
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const problem = judge(response, fuzzed);
        const kind = `${fuzzed.method} ${fuzzed.route} ${response.status} ${problem}`;
        if (problem && !failureKinds.has(kind) && failures.length < 40) {
          failureKinds.add(kind);
          failures.push(
            `#${index} ${summarize(fuzzed)} → ${response.status} ${problem}: ${response.text.slice(0, 300)}`,
          );
        }
      }
    };
    const health = await probeHealthDuring(
      `http://127.0.0.1:${port}`,
      () => Promise.all(Array.from({ length: CONCURRENCY }, worker)),
      100,
    );

    console.log(
      `fuzz seed ${SEED}: ${REQUESTS} requests over ${routes.length} routes; statuses ` +
        JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b))) +
        `; /health slowest ${Math.round(health.slowest)} ms beyond an idle server's over ${health.probes} probes`,
    );
    expect({ seed: SEED, failures }).toEqual({ seed: SEED, failures: [] });
    expect(health.probes).toBeGreaterThan(10);
    expect(health.slowest).toBeLessThan(HEALTH_BUDGET_MS);
  }, 240_000);

  /** `method path` for every route Fastify serves, from its own route tree. */
  function servedRoutes(): Route[] {
    const tree = api.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
    const routes: Route[] = [];
    const stack: string[] = [];
    for (const line of tree.split('\n')) {
      const match = /^([│ ]*)(?:├── |└── )(\S+) \(([A-Z, ]+)\)$/.exec(line);
      if (!match) continue;
      const depth = match[1].length / 4;
      stack.length = depth;
      const path = (stack[depth - 1] ?? '') + match[2];
      stack[depth] = path;
      for (const method of match[3].split(', ')) routes.push({ method, path });
    }
    return routes;
  }

  async function signUp() {
    const probe = await send({ method: 'GET', path: '/dashboard/api/session', headers: {} }, agent);
    const visitor = cookiesOf(probe.headers);
    const csrf = (JSON.parse(probe.text) as { csrf_token: string }).csrf_token;
    const body = JSON.stringify({
      account_name: 'Fuzz dashboard',
      name: 'Fuzz',
      email: 'fuzz-owner@example.com',
      password: 'correct horse battery staple',
    });
    const signedUp = await send(
      {
        method: 'POST',
        path: '/dashboard/api/signup',
        headers: { cookie: visitor, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: Buffer.from(body),
      },
      agent,
    );
    expect(signedUp.status).toBe(201);
    return {
      cookie: cookiesOf(signedUp.headers) || visitor,
      csrf: (JSON.parse(signedUp.text) as { csrf_token: string }).csrf_token,
    };
  }

  /** A subscriber, template, segment and campaign, so that some ids in paths exist. */
  async function seedEntities() {
    const create = async (path: string, body: object) => {
      const response = await send(
        {
          method: 'POST',
          path,
          headers: { authorization: bearer, 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(body)),
        },
        agent,
      );
      expect(response.status).toBe(201);
      ids.push((JSON.parse(response.text) as { id: string }).id);
    };
    await create('/v1/subscribers', { email: 'seed@example.com', custom_fields: { plan: 'pro' } });
    await create('/v1/templates', { name: 'Seed', subject: 'Hi {{first_name}}', text: 'x' });
    await create('/v1/segments', { name: 'Seed', filter: {} });
    await create('/v1/campaigns', { name: 'Seed', subject: 's', from: 'a@acme.test', text: 'x' });
  }

  /** One fuzzed request, entirely decided by `random`. */
  function generate(random: Random, routes: Route[]): Fuzzed {
    const route = random.pick(routes);
    const { path } = route;
    const method = random.chance(0.05)
      ? random.pick(['PUT', 'DELETE', 'PATCH', 'OPTIONS'])
      : route.method;
    const concrete = path
      .replace(/:[A-Za-z]+/g, () => pathParam(random))
      .replace(/\*$/, () => random.pick(['x', 'a/b/c', '%00', '..%2F..', '%C3%A9']));
    const query = random.chance(0.4) ? `?${queryString(random)}` : '';
    const headers: Record<string, string> = {};
    const signedOutRoute = /\/(signup|signin|signout)$/.test(path);
    if (path.startsWith('/v1/') && !random.chance(0.05)) {
      headers.authorization = random.chance(0.03) ? random.pick(BAD_CREDENTIALS) : bearer;
    }
    if (path.startsWith('/dashboard/api/') && !signedOutRoute && !random.chance(0.05)) {
      headers.cookie = session.cookie;
      headers['x-csrf-token'] = random.chance(0.05) ? 'wrong' : session.csrf;
    }
    if (random.chance(0.1)) headers['idempotency-key'] = random.pick(['', 'k', 'x'.repeat(300)]);
    const fuzzed: Fuzzed = { method, route: path, path: concrete + query, headers };
    if (['POST', 'PATCH', 'PUT', 'DELETE'].includes(method) && !random.chance(0.1)) {
      const { contentType, body } = bodyOf(random, path);
      if (contentType !== undefined) headers['content-type'] = contentType;
      fuzzed.body = body;
    }
    return fuzzed;
  }

  function pathParam(random: Random): string {
    return random.pick([
      () => random.pick(ids),
      () => random.pick(ids).toUpperCase(),
      () => '01900000-0000-7000-8000-000000000000',
      () => 'a'.repeat(random.int(1, 400)),
      () => '%00',
      () => 'x%00y',
      () => '%E0%A4%A',
      () => '%ED%A0%80',
      () => '%C3%A9t%C3%A9',
      () => '%25',
      () => '..%2F..%2Fetc',
      () => '-1',
      () => 'null',
      () => `${random.pick(ids)}.${'A'.repeat(22)}`,
    ])();
  }

  function queryString(random: Random): string {
    const keys = ['limit', 'cursor', 'q', 'search', 'from', 'to', 'status', 'u', 's', 'x'];
    const values = [
      '%00',
      '-1',
      '0',
      '1e9',
      'abc',
      '%zz',
      '%ED%A0%80',
      'x'.repeat(3000),
      '0000-01-01',
      '19900101',
      'https%3A%2F%2Fevil.test',
      '%E4%B8%AD',
      '',
    ];
    return Array.from({ length: random.int(1, 4) }, () =>
      random.chance(0.1) ? random.pick(values) : `${random.pick(keys)}=${random.pick(values)}`,
    ).join('&');
  }

  function bodyOf(random: Random, route: string): { contentType?: string; body: Buffer } {
    const contentType = random.weighted<string | undefined>([
      [70, 'application/json'],
      [5, 'application/json; charset=utf-8'],
      [5, 'text/plain'],
      [5, 'application/x-www-form-urlencoded'],
      [4, 'multipart/form-data; boundary=x'],
      [3, 'application/xml'],
      [3, undefined],
      [5, 'application/merge-patch+json'],
    ]);
    if (contentType?.startsWith('application/x-www')) {
      return { contentType, body: Buffer.from('email=a%40b.test&name=%00') };
    }
    const json = JSON.stringify(topLevel(random, route));
    const text = random.weighted<() => Buffer>([
      [85, () => Buffer.from(json)],
      [4, () => Buffer.from(json.slice(0, random.int(0, json.length)))],
      [
        3,
        () =>
          Buffer.concat([
            Buffer.from(json.slice(0, -1)),
            Buffer.from([0xc3, 0x28, 0xff]),
            Buffer.from('}'),
          ]),
      ],
      [2, () => Buffer.from(`\ufeff${json}`)],
      [2, () => Buffer.from(`${json} trailing`)],
      [2, () => Buffer.alloc(0)],
      [2, () => Buffer.from(`{"__proto__":{"polluted":true},"a":1}`)],
    ])();
    return { contentType, body: text };
  }

  /**
   * Half the time the route's own fields, complete, with one to three of them spoiled (so
   * that validation and the service behind it run); otherwise any fields at all.
   */
  function topLevel(random: Random, route: string): unknown {
    if (random.chance(0.05)) return random.pick([[], 'text', 42, null, true, [{ email: 'a@b.c' }]]);
    const base = Object.entries(BODIES).find(([suffix]) => route.endsWith(suffix))?.[1];
    if (base && random.chance(0.5)) {
      const body: Record<string, unknown> = {};
      for (const field of base) body[field] = plausible(field, random);
      for (let i = random.int(1, 3); i > 0; i--) {
        const field = random.chance(0.8) ? random.pick(base) : random.pick(FIELDS);
        body[field] = value(random, 0);
      }
      return body;
    }
    const body: Record<string, unknown> = {};
    for (let i = random.int(0, 6); i > 0; i--) {
      const field = random.pick(FIELDS);
      body[field] = random.chance(0.4) ? plausible(field, random) : value(random, 0);
    }
    if (random.chance(0.05)) body[random.string()] = value(random, 0);
    return body;
  }

  function plausible(field: string, random: Random): unknown {
    const n = random.int(0, 1e6);
    const byField: Record<string, unknown> = {
      email: `fuzz${n}@example.com`,
      to: `fuzz${n}@example.com`,
      name: `Fuzz ${n}`,
      account_name: 'Fuzz Inc',
      subject: 'Hi {{first_name}}',
      html: random.pick([
        '<p>{{first_name}}</p>',
        '<a href="https://x.test/é">é</a>',
        '{{#each a}}',
      ]),
      text: '{{lookup a}}',
      from: 'Acme <a@acme.test>',
      filter: random.pick([{}, { field: 'birthdate', op: 'after', value: '0000-01-01' }]),
      custom_fields: { plan: 'pro', n },
      statistics: { opens: 1 },
      birthdate: random.pick(['1990-01-01', '0000-01-01', '19900101', '2024-02-30']),
      tags: ['a', 'b'],
      interests: ['c'],
      social_media: [{ platform: 'x' }, { profile_id: 'y' }],
      data: { first_name: 'Ada', a: [1, 2] },
      template_id: random.pick(ids),
      segment_id: random.pick(ids),
      subscriber_id: random.pick(ids),
      scopes: ['subscribers:read'],
      password: 'x',
      status: 'subscribed',
    };
    return byField[field] ?? random.string();
  }

  /** A JSON value chosen to break things: wrong types, bad text, huge, deep, many keys. */
  function value(random: Random, depth: number): unknown {
    const inner = () => value(random, depth + 1);
    return random.weighted<() => unknown>([
      [30, () => random.string()],
      [6, () => random.pick([0, -1, 1e308, -0, 3.14, 2 ** 53 + 1, 1e-300])],
      [4, () => random.pick([true, false, null])],
      [8, () => (depth > 2 ? [] : Array.from({ length: random.int(0, 4) }, inner))],
      [8, () => (depth > 2 ? {} : objectOf(random, random.int(0, 4), inner))],
      [3, () => nest(random.int(10, 40))],
      [2, () => objectOf(random, random.int(90, 1100), () => random.pick(SCALARS))],
      [2, () => Array.from({ length: random.int(100, 5000) }, () => random.pick(SCALARS))],
      [1, () => 'x'.repeat(random.int(100_000, 600_000))],
    ])();
  }

  function objectOf(random: Random, keys: number, item: () => unknown): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    for (let i = 0; i < keys; i++) object[random.chance(0.1) ? random.string() : `k${i}`] = item();
    return object;
  }

  function nest(depth: number): unknown {
    let inner: unknown = 'bottom';
    for (let i = 0; i < depth; i++) inner = i % 2 ? [inner] : { a: inner };
    return inner;
  }
});

/** The fields a valid body of a route has, by the end of its path. */
const BODIES: Record<string, string[]> = {
  '/subscribers': ['email', 'first_name', 'custom_fields', 'tags', 'birthdate', 'social_media'],
  '/subscribers/:id': ['first_name', 'statistics', 'interests', 'birthdate'],
  '/templates': ['name', 'subject', 'html', 'text'],
  '/templates/:id': ['subject', 'html'],
  '/templates/render': ['subject', 'html', 'data', 'subscriber_id'],
  '/preview': ['data', 'subscriber_id'],
  '/segments': ['name', 'filter'],
  '/segments/:id': ['name', 'filter'],
  '/segments/count': ['filter'],
  '/campaigns': ['name', 'subject', 'from', 'html', 'segment_id'],
  '/campaigns/:id': ['subject', 'from', 'template_id'],
  '/transactional/send': ['to', 'from', 'subject', 'text', 'template_id', 'data'],
  '/erasures': ['email'],
  '/signup': ['account_name', 'name', 'email', 'password'],
  '/signin': ['email', 'password'],
  '/keys': ['name', 'scopes'],
};

const FIELDS = [
  'email',
  'to',
  'name',
  'account_name',
  'first_name',
  'subject',
  'html',
  'text',
  'from',
  'filter',
  'custom_fields',
  'statistics',
  'birthdate',
  'tags',
  'interests',
  'social_media',
  'data',
  'template_id',
  'segment_id',
  'subscriber_id',
  'scopes',
  'password',
  'status',
  'id',
  'created_at',
  'country_code',
];

/** Header values a client can send (no control characters), none of them a valid key. */
const BAD_CREDENTIALS = [
  'Bearer',
  'Bearer ',
  'Basic YTpi',
  `Bearer sk_live_${'A'.repeat(43)}`,
  `Bearer ${'x'.repeat(5000)}`,
  'Bearer \u00e9\u00e9',
  'bearer  sk_live_',
];

const SCALARS = ['x', 1, null, true, '\u0000', '\ud800', {}, []];

const STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udc00y',
  '\udbff\udbff',
  '😀',
  'é',
  '\u202e\u0627',
  '<script>alert(1)</script>',
  "'; DROP TABLE subscribers; --",
  '{{constructor}}',
  '{{#each a}}',
  '{{> partial}}',
  '%00',
  '\r\nBcc: all@example.com',
  'a@b',
  'not-an-email',
  '"a"@b.test',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '19900101',
  '1990-02-30',
  '2999-12-31',
  '1899-12-31',
  '9999-99-99',
  'NaN',
  '-1',
  '1e309',
  'null',
  'true',
  '__proto__',
  'constructor',
];

interface Route {
  method: string;
  path: string;
}

interface Fuzzed {
  method: string;
  /** The route as the router spells it; `path` is the URL sent. */
  route?: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** What is wrong with an answer, or undefined: a success, or an error in the envelope. */
function judge(answer: Answer, fuzzed: Fuzzed): string | undefined {
  if (answer.status === 0) return 'no HTTP answer';
  if (answer.status >= 500) return 'a server error';
  if (answer.status < 400) return undefined;
  if (!ERROR_STATUSES.has(answer.status)) return 'a status outside the eight';
  // HEAD is answered as GET without a body: the status is all there is to check.
  if (fuzzed.method === 'HEAD') return undefined;
  // Pages for people (an unsubscribe link, the dashboard's HTML) answer errors as pages.
  const page = /^text\/html/.test(answer.headers['content-type'] ?? '');
  if (page && !/^\/(v1|dashboard\/api)\//.test(fuzzed.path)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'an error that is not JSON';
  }
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } })
    .error;
  if (!error || Object.keys(body as object).length !== 1) return 'no envelope';
  if (error.code !== CODES[answer.status]) return `code ${String(error.code)}`;
  if (typeof error.message !== 'string' || error.message.length === 0) return 'no message';
  if (!Array.isArray(error.details)) return 'no details array';
  if (answer.status !== 422 && error.details.length > 0) return 'details outside a 422';
  if (answer.status === 422 && error.details.length === 0) return 'a 422 without details';
  return undefined;
}

function summarize(fuzzed: Fuzzed): string {
  const body = fuzzed.body ? ` ${fuzzed.body.toString('utf8').slice(0, 200)}` : '';
  const type = fuzzed.headers['content-type'] ?? '(no type)';
  return `${fuzzed.method} ${fuzzed.path.slice(0, 200)} [${type}]${body}`;
}

function send(fuzzed: Fuzzed, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: fuzzed.method,
        path: fuzzed.path,
        headers: {
          ...fuzzed.headers,
          ...(fuzzed.body ? { 'content-length': String(fuzzed.body.length) } : {}),
        },
        agent,
        timeout: 30_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`no answer in 30 s: ${summarize(fuzzed)}`)),
    );
    request.on('error', reject);
    request.end(fuzzed.body);
  });
}

function cookiesOf(headers: IncomingHttpHeaders): string {
  return (headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]).join('; ');
}

let port = 0;

/**
 * mulberry32, seeded by the run's seed and the request's index: request N is the same in
 * every run with that seed, whichever worker sends it.
 */
class Random {
  private state: number;

  constructor(seed: number, index: number) {
    this.state = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  weighted<T>(choices: [number, T][]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [weight, choice] of choices) {
      roll -= weight;
      if (roll < 0) return choice;
    }
    return choices[choices.length - 1][1];
  }

  string(): string {
    return this.chance(0.8)
      ? this.pick(STRINGS)
      : this.pick(STRINGS) + 'x'.repeat(this.int(200, 2000)) + this.pick(STRINGS);
  }
}
