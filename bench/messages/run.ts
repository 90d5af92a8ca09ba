// `npm run bench:messages`: the message log's reads over 1,000,000 messages and 5,000,000
// events. Herald's API (compiled, `--api-only`) answers three kinds of request, one at a time
// over a kept-alive connection: a recipient search (`?recipient=…&limit=100`), a page of 100
// (first pages and pages deep into the list, by cursor) and GET /v1/messages/{id}. The
// baseline, in the same run on the same data, is the same statements sent by a bare pg client
// (the repository's own SQL, the recipient hashed in-process): what PostgreSQL alone costs, so
// the ratio is Herald's overhead (HTTP, auth, rate limiter, presenting). Printed per kind: p50
// and p99 of each and the ratio of the p99s; targets: p99 < 100 ms for the search and the page,
// < 20 ms for GET by id.
//
// Latency on a shared machine says as much about the machine as about Herald, so the run also
// prints what does not depend on it: the load average while measuring; Herald's own answer
// times (its request histogram, from /metrics: the share answered within 5, 10 and 25 ms);
// the CPU each kind of request costs Herald's process and its PostgreSQL backends (from /proc,
// when PostgreSQL runs on this machine); and the plans, with buffers, of GET by id and of an
// erasure (rolled back).
//
// Data: two accounts (the bench's with 900,000 messages to 150,000 recipients over 30 days, and
// another with 100,000), five events per message. Seeded in SQL with generate_series into the
// tables as the migration made them, with the secondary indexes built after the rows (as a
// restore would), then VACUUM ANALYZE. Message ids are UUIDv7 of their creation time, like
// Herald's; recipient hashes are the real erasure hashes of the seeded addresses.
//
// Steps: build → throwaway database → migrate → account and key → seed → API → check both
// answer the same rows → measure in ABBA order → table → clean up (also on failure, Ctrl-C).
//
// Env (optional): BENCH_REQUESTS (300 per kind and contender and round), BENCH_ROUNDS (2),
// BENCH_MESSAGES (1000000), PG_SERVER, REDIS_URL.

import { Client } from 'pg';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import * as sql from '../../src/messages/messages.sql';
import { KeyedHasher, normalizeEmail } from '../../src/platform/crypto/keyed-hasher';
import { CursorCodec } from '../../src/platform/pagination/cursor-codec';
import { BenchHarness, freePort, ROOT } from '../support/harness';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const EVENTS_PER_MESSAGE = 5;
const OTHER_SHARE = 0.1;
const RECIPIENTS = 150_000;
const DAYS = 30;
const TARGETS = { search: 100, page: 100, get: 20 } as const;
type Kind = keyof typeof TARGETS;

const API_FLAGS = (() => {
  const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = scripts['start:api'].trim().split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/main.js'));
})();

const bench = new BenchHarness({ LOG_LEVEL: 'warn', RATE_LIMIT: '1000000' }, 1_800_000);
const env = bench.env;
const hasher = new KeyedHasher(env.HERALD_SECRET!);
const email = (n: number) => `person${n}@example.com`;

// ---- seeding ----------------------------------------------------------------------------

const SECONDARY_INDEXES = [
  'messages_account_id_created_at_id_idx',
  'messages_account_id_recipient_hash_created_at_id_idx',
  'messages_campaign_recipient_key',
  'messages_account_id_subscriber_id_idx',
];

async function seed(db: Client, accountId: string, otherId: string): Promise<void> {
  const { rows } = await db.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE indexname = ANY($1)`,
    [SECONDARY_INDEXES],
  );
  for (const { name } of rows) await db.query(`DROP INDEX ${name}`);
  // The recipients, with their real erasure hashes (the bench account's).
  await db.query('CREATE TEMP TABLE bench_recipients (n int PRIMARY KEY, email text, hash text)');
  const numbers = Array.from({ length: RECIPIENTS }, (_, n) => n);
  await db.query(
    `INSERT INTO bench_recipients SELECT * FROM unnest($1::int[], $2::text[], $3::text[])`,
    [
      numbers,
      numbers.map(email),
      numbers.map((n) => hasher.hash(`erasure:${accountId}`, normalizeEmail(email(n)))),
    ],
  );
  const mine = Math.round(MESSAGES * (1 - OTHER_SHARE));
  const now = Date.now();
  const spanMs = DAYS * 86_400_000 - 3_600_000;
  // UUIDv7 of created_at (48 bits of ms, version 7, variant 8, the rest from md5(i)).
  await db.query(
    `INSERT INTO messages (id, account_id, source, campaign_id, subscriber_id, recipient,
                           recipient_hash, from_address, subject, header_message_id, status,
                           created_at)
     SELECT (lpad(to_hex(t.ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
            CASE WHEN i <= $1 THEN $2::uuid ELSE $3::uuid END,
            (ARRAY['campaign', 'campaign', 'campaign', 'transactional', 'automation'])[1 + i % 5],
            CASE WHEN i % 5 < 3 THEN md5('c' || (i % 40))::uuid END,
            md5('s' || i)::uuid,
            r.email, r.hash, 'news@acme.example', 'Your weekly news #' || (i % 40),
            '<' || h || '@acme.example>',
            (ARRAY['delivered', 'delivered', 'delivered', 'delivered', 'bounced', 'deferred',
                   'complained', 'failed'])[1 + i % 8],
            to_timestamp(t.ms / 1000.0)
       FROM generate_series(1, $5::int) AS i
       CROSS JOIN LATERAL (SELECT md5(i::text) AS h,
                                  ($6::bigint - (i::bigint * $7::bigint / $5::bigint)) AS ms) t
       JOIN bench_recipients r ON r.n = i % $4`,
    [mine, accountId, otherId, RECIPIENTS, MESSAGES, now, spanMs],
  );
  await db.query(
    `INSERT INTO message_events (message_id, type, at, smtp_code, reason, url, machine)
     SELECT m.id, (ARRAY['sent', 'delivered', 'opened', 'clicked', 'opened'])[e],
            m.created_at + e * interval '1 minute',
            CASE WHEN e = 2 THEN 250 END, CASE WHEN e = 2 THEN '250 2.0.0 OK queued' END,
            CASE WHEN e = 4 THEN 'https://acme.example/spring' END,
            CASE WHEN e IN (3, 4, 5) THEN false END
       FROM messages m CROSS JOIN generate_series(1, ${EVENTS_PER_MESSAGE}) AS e`,
  );
  for (const { def } of rows) await db.query(def);
  await db.query('VACUUM ANALYZE messages');
  await db.query('VACUUM ANALYZE message_events');
}

// ---- the requests -----------------------------------------------------------------------

interface Request {
  kind: Kind;
  /** Herald's path. */
  path: string;
  /** The same work for the baseline. */
  direct: (db: Client) => Promise<unknown>;
}

function keptAfter(): Date {
  return new Date(Date.now() - DAYS * 86_400_000);
}

/** `REQUESTS` requests of each kind: random recipients, random pages, random ids. */
async function requests(db: Client, accountId: string): Promise<Request[]> {
  const codec = new CursorCodec(hasher);
  const { rows: ids } = await db.query<{ id: string }>(
    `SELECT id::text FROM messages TABLESAMPLE SYSTEM (1) WHERE account_id = $1 LIMIT $2`,
    [accountId, REQUESTS],
  );
  const list = (filters: sql.ListFilters, afterId?: string) => async (client: Client) => {
    const { text, values } = sql.listMessages(accountId, keptAfter(), filters, 101, afterId);
    return (await client.query<{ id: string }>(text, values)).rows;
  };
  const out: Request[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const n = Math.floor(Math.random() * RECIPIENTS);
    const recipientHash = hasher.hash(`erasure:${accountId}`, normalizeEmail(email(n)));
    out.push({
      kind: 'search',
      path: `/v1/messages?limit=100&recipient=${encodeURIComponent(email(n))}`,
      direct: list({ recipientHash }),
    });
    // Half first pages, half pages after a random message (a cursor deep into the list).
    const after = i % 2 === 0 ? undefined : ids[i % ids.length].id;
    const cursor = after
      ? `&cursor=${encodeURIComponent(codec.encode(accountId, 'messages', after))}`
      : '';
    out.push({ kind: 'page', path: `/v1/messages?limit=100${cursor}`, direct: list({}, after) });
    const id = ids[i % ids.length].id;
    out.push({
      kind: 'get',
      path: `/v1/messages/${id}`,
      // Prepared by name, as Herald runs it straight to PostgreSQL.
      direct: async (client) =>
        (
          await client.query<{ id: string }>({
            name: sql.GET_MESSAGE_NAME,
            text: sql.GET_MESSAGE,
            values: [accountId, id, keptAfter()],
          })
        ).rows,
    });
  }
  return out;
}

// ---- measuring --------------------------------------------------------------------------

type Latencies = Record<Kind, number[]>;

async function measureHerald(url: string, key: string, list: Request[]): Promise<Latencies> {
  const out: Latencies = { search: [], page: [], get: [] };
  for (const request of list) {
    const start = process.hrtime.bigint();
    const response = await fetch(url + request.path, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = await response.text();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (response.status !== 200) throw new Error(`${request.path}: ${response.status} ${body}`);
    out[request.kind].push(ms);
  }
  return out;
}

async function measureBaseline(db: Client, list: Request[]): Promise<Latencies> {
  const out: Latencies = { search: [], page: [], get: [] };
  for (const request of list) {
    const start = process.hrtime.bigint();
    const rows = await request.direct(db);
    // Serialised like an answer, so the baseline does that work too.
    JSON.stringify(rows);
    out[request.kind].push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** Both answer the same rows for a search and a page: the comparison is like with like. */
async function checkSame(url: string, key: string, db: Client, list: Request[]) {
  for (const request of list.filter((r) => r.kind !== 'get').slice(0, 4)) {
    const response = await fetch(url + request.path, {
      headers: { authorization: `Bearer ${key}` },
    });
    const herald = ((await response.json()) as { data: { id: string }[] }).data.map((m) => m.id);
    const direct = ((await request.direct(db)) as { id: string }[]).slice(0, 100).map((m) => m.id);
    if (JSON.stringify(herald) !== JSON.stringify(direct)) {
      throw new Error(`${request.path}: Herald and the baseline answer different rows`);
    }
  }
}

// ---- server-side evidence ---------------------------------------------------------------

/** CPU seconds a process has used (user + system), from /proc; undefined where there is none. */
function cpuSeconds(pid: number): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return undefined;
  // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks
  // (a hundredth of a second on Linux).
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Herald's connections to the bench database (server process ids), not the bench's own. */
async function heraldBackends(db: Client): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND backend_type = 'client backend'`,
  );
  return rows.map((row) => row.pid);
}

/**
 * CPU milliseconds per request of one kind: Herald's process, and its PostgreSQL backends
 * (only when PostgreSQL runs here, where its processes' /proc entries can be read, and none
 * of them closed meanwhile, taking its CPU time with it).
 */
async function cpuPerRequest(
  url: string,
  key: string,
  db: Client,
  apiPid: number,
  list: Request[],
): Promise<{ herald: number; postgres: number | undefined }> {
  const backends = await heraldBackends(db);
  // Undefined when a backend's /proc entry cannot be read (PostgreSQL runs elsewhere).
  const total = (pids: number[]) => {
    const values = pids.map(cpuSeconds);
    if (values.length === 0 || values.includes(undefined)) return undefined;
    return values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
  };
  const herald0 = cpuSeconds(apiPid) ?? 0;
  const postgres0 = total(backends);
  await measureHerald(url, key, list);
  const herald1 = cpuSeconds(apiPid) ?? 0;
  const same = (await heraldBackends(db)).sort().join() === [...backends].sort().join();
  const postgres1 = same ? total(backends) : undefined;
  return {
    herald: ((herald1 - herald0) * 1000) / list.length,
    postgres:
      postgres0 === undefined || postgres1 === undefined
        ? undefined
        : ((postgres1 - postgres0) * 1000) / list.length,
  };
}

interface RouteTimes {
  buckets: Map<string, number>;
  count: number;
  sum: number;
}

/** Herald's request-duration histogram of GET routes, by route, as /metrics shows it. */
async function answerTimes(url: string): Promise<Map<string, RouteTimes>> {
  const token = process.env.METRICS_TOKEN;
  const response = await fetch(`${url}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const out = new Map<string, RouteTimes>();
  const line = /^herald_http_request_duration_seconds_(bucket|sum|count)\{(.*)\} (\S+)$/;
  for (const match of (await response.text()).split('\n').map((text) => line.exec(text))) {
    if (!match || !match[2].includes('method="GET"')) continue;
    const route = /route="([^"]*)"/.exec(match[2])?.[1] ?? '';
    const entry = out.get(route) ?? { buckets: new Map<string, number>(), count: 0, sum: 0 };
    const value = Number(match[3]);
    if (match[1] === 'bucket') entry.buckets.set(/le="([^"]*)"/.exec(match[2])?.[1] ?? '', value);
    else if (match[1] === 'count') entry.count = value;
    else entry.sum = value;
    out.set(route, entry);
  }
  return out;
}

/** What the histogram counted between two scrapes, for a route: its mean and shares within. */
function describeAnswerTimes(
  before: Map<string, RouteTimes>,
  after: Map<string, RouteTimes>,
  route: string,
): string {
  const a = after.get(route);
  if (!a) return `${route}: not in /metrics`;
  const b = before.get(route) ?? { buckets: new Map<string, number>(), count: 0, sum: 0 };
  const count = a.count - b.count;
  const within = (le: string) =>
    `${((((a.buckets.get(le) ?? 0) - (b.buckets.get(le) ?? 0)) * 100) / count).toFixed(1)} %`;
  const mean = ((a.sum - b.sum) * 1000) / count;
  return (
    `${route.padEnd(17)} ${count} answers, mean ${mean.toFixed(2)} ms; ` +
    `within 5 ms ${within('0.005')}, 10 ms ${within('0.01')}, 25 ms ${within('0.025')}`
  );
}

/** EXPLAIN (ANALYZE, BUFFERS) of GET by id and of an erasure, the erasure rolled back. */
async function printPlans(db: Client, accountId: string, list: Request[]): Promise<void> {
  const get = list.find((request) => request.kind === 'get')!;
  const id = get.path.slice(get.path.lastIndexOf('/') + 1);
  const explain = async (text: string, values: unknown[]) =>
    (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values)).rows
      .map((row) => `  ${row['QUERY PLAN']}`)
      .join('\n');
  console.log(`\nGET by id:\n${await explain(sql.GET_MESSAGE, [accountId, id, keptAfter()])}`);
  const { rows } = await db.query<{ hash: string; subscriber: string }>(
    `SELECT recipient_hash AS hash, subscriber_id::text AS subscriber FROM messages WHERE id = $1`,
    [id],
  );
  await db.query('BEGIN');
  try {
    const plan = await explain(sql.ERASE_MESSAGES, [accountId, rows[0].hash, rows[0].subscriber]);
    console.log(`\nerasure of one identity (rolled back):\n${plan}`);
  } finally {
    await db.query('ROLLBACK');
  }
}

async function main(): Promise<void> {
  console.log('building…');
  await bench.build();
  console.log(`database ${bench.database}: migrating, creating accounts and key…`);
  await bench.migrate();
  const account = await bench.cli('accounts', 'create', '--name', 'Bench');
  const other = await bench.cli('accounts', 'create', '--name', 'Other');
  const keyArgs = ['--account', account.id, '--name', 'bench', '--scopes', 'messages:read'];
  const { key } = await bench.cli('keys', 'create', ...keyArgs);

  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  try {
    const seedStart = Date.now();
    console.log(`seeding ${MESSAGES} messages and ${MESSAGES * EVENTS_PER_MESSAGE} events…`);
    await seed(db, account.id, other.id);
    console.log(`seeded in ${((Date.now() - seedStart) / 1000).toFixed(0)} s`);

    const port = await freePort();
    const { child, output } = bench.start(
      [...API_FLAGS, 'dist/main.js', '--api-only'],
      { PORT: String(port) },
      true,
    );
    const url = `http://127.0.0.1:${port}`;
    for (const deadline = Date.now() + 60_000; ;) {
      const status = await fetch(`${url}/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`herald did not become healthy:\n${output.join('')}`);
      }
      await new Promise((wake) => setTimeout(wake, 200));
    }

    const list = await requests(db, account.id);
    await checkSame(url, key, db, list);
    console.log('Herald and the baseline answer the same rows');
    // Warm-up: plans, pools, JIT, the indexes' pages in the cache.
    await measureHerald(url, key, list);
    await measureBaseline(db, list);

    const herald: Latencies = { search: [], page: [], get: [] };
    const baseline: Latencies = { search: [], page: [], get: [] };
    const timesBefore = await answerTimes(url);
    const loadBefore = loadavg()[0];
    const add = (into: Latencies, from: Latencies) => {
      for (const kind of Object.keys(into) as Kind[]) into[kind].push(...from[kind]);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: drift over the run weighs on both alike.
      if (round % 2 === 0) {
        add(herald, await measureHerald(url, key, list));
        add(baseline, await measureBaseline(db, list));
      } else {
        add(baseline, await measureBaseline(db, list));
        add(herald, await measureHerald(url, key, list));
      }
    }

    console.log(
      `\n${MESSAGES} messages, ${MESSAGES * EVENTS_PER_MESSAGE} events; ` +
        `${REQUESTS * ROUNDS} requests per kind and contender, one at a time:\n`,
    );
    console.log('kind     herald p50  herald p99  baseline p50  baseline p99  p99 ratio  target');
    let met = true;
    for (const kind of Object.keys(TARGETS) as Kind[]) {
      const h50 = percentile(herald[kind], 50);
      const h99 = percentile(herald[kind], 99);
      const b50 = percentile(baseline[kind], 50);
      const b99 = percentile(baseline[kind], 99);
      const ok = h99 < TARGETS[kind];
      met &&= ok;
      console.log(
        `${kind.padEnd(8)} ${h50.toFixed(1).padStart(10)} ${h99.toFixed(1).padStart(11)} ` +
          `${b50.toFixed(1).padStart(13)} ${b99.toFixed(1).padStart(13)} ` +
          `${(h99 / b99).toFixed(2).padStart(10)}  p99 < ${TARGETS[kind]} ms: ${ok ? 'met' : 'NOT met'}`,
      );
    }
    console.log(met ? '\nall targets met' : '\nsome targets NOT met');
    const loadAfter = loadavg()[0];
    const timesAfter = await answerTimes(url);
    console.log(
      `\nload average (1 min): ${loadBefore.toFixed(1)} before measuring, ` +
        `${loadAfter.toFixed(1)} after, on ${availableParallelism()} cores`,
    );
    console.log("Herald's own answer times (its histogram, over the measured rounds):");
    for (const route of ['/v1/messages', '/v1/messages/:id']) {
      console.log(`  ${describeAnswerTimes(timesBefore, timesAfter, route)}`);
    }
    console.log('CPU per request, one kind at a time:');
    for (const kind of Object.keys(TARGETS) as Kind[]) {
      const ofKind = list.filter((request) => request.kind === kind);
      const cpu = await cpuPerRequest(url, key, db, child.pid!, ofKind);
      const postgres = cpu.postgres === undefined ? 'n/a' : `${cpu.postgres.toFixed(2)} ms`;
      console.log(
        `  ${kind.padEnd(8)} Herald ${cpu.herald.toFixed(2)} ms, its PostgreSQL backends ${postgres}`,
      );
    }
    await printPlans(db, account.id, list);
  } finally {
    await db.end();
  }
}

bench.main(main);
