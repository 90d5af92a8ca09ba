// `npm run bench:api-list`: GET /v1/subscribers?limit=25 over 10,000 subscribers,
// Herald against a bare Fastify + pg server doing the same work (baseline-server.ts), in the
// same run on the same data, at 10 and at 50 concurrent connections. Prints, per connection
// count, req/s, p50 and p99 of each, each server process's CPU time per request, and the
// ratios Herald/baseline (target: req/s at least 0.90 of the baseline's, p99 at most 1.3x
// the baseline's). The baseline does what the endpoint needs (auth, with Herald's own API-key
// cache, so neither reads the key from PostgreSQL per request; scope, keyset query,
// presenting); Herald also runs its rate limiter, request ids and Nest's pipeline, which is
// exactly the overhead being measured.
//
// Steps: build → throwaway database herald_bench_<random> → migrate → account + key through
// the operator CLI → seed → start both servers as child processes on free loopback ports →
// check they answer the same JSON → per connection count: warm up, measure in ABBA order →
// table → clean up. Clean-up (servers, database, Redis keys) also runs on failure and on Ctrl-C.
//
// Env (optional): BENCH_SECONDS (10) per measured run, BENCH_CONNECTIONS (10,50: a
// comma-separated list, each measured in turn), BENCH_ROUNDS (2: herald-baseline pairs per
// connection count, in ABBA order; more on a busy machine), BENCH_SUBSCRIBERS (10000), BENCH_NODE_ARGS
// (none: node flags of both servers, e.g. `--cpu-prof --cpu-prof-dir=var/prof`; profiles are
// written when the servers stop at the end), PG_SERVER (postgresql://postgres@127.0.0.1:5432),
// REDIS_URL. Herald runs with the Node flags of the `start:api` script in package.json (its heap
// sizes are part of what production runs), the baseline with Node's defaults.

import { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { newId } from '../../src/platform/crypto/ids';
import { BenchHarness, freePort, ROOT } from '../support/harness';
import { withClient } from '../support/stores';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map(Number);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARMUP_SECONDS = 5;
const PATH = '/v1/subscribers?limit=25';
/** Herald's req/s must reach this share of the baseline's, its p99 stay under this multiple. */
const TARGET_THROUGHPUT = 0.9;
const TARGET_P99 = 1.3;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** The Node flags of `npm run start:api`, between `node` and `dist/main.js`. */
const API_FLAGS = (() => {
  const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = scripts['start:api'].trim().split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/main.js'));
})();

const bench = new BenchHarness(
  {
    LOG_LEVEL: 'warn',
    // Herald limits each key to 100 req/s by default. The limiter still runs (its Redis round
    // trip is part of Herald's cost); the ceiling is only raised so that it never answers 429.
    RATE_LIMIT: '1000000',
  },
  120_000,
);
const env = bench.env;

// ---- setup ------------------------------------------------------------------------------

/**
 * 10,000 subscribers in one INSERT … SELECT over unnest(ids). Ids come from Herald's own
 * newId() one millisecond apart, so they are time-ordered like real ones; rows carry the
 * kind of data a real list returns (names, tags, JSON fields, statistics), because
 * presenting and serialising them is part of what is measured.
 */
async function seed(accountId: string): Promise<void> {
  const start = Date.now() - SUBSCRIBERS;
  const ids = Array.from({ length: SUBSCRIBERS }, (_, i) => newId(start + i));
  await withClient(env.DATABASE_URL, (db) =>
    db.query(
      `INSERT INTO subscribers (id, account_id, email, email_normalized, first_name, last_name,
         phone, city, country_code, birthdate, timezone, interests, tags, custom_fields,
         social_media, stat_sent, stat_delivered, stat_opens, stat_clicks, stat_revenue_cents,
         last_sent_at, created_at, updated_at)
       SELECT t.id, $2, 'Subscriber' || t.n || '@Example.com', 'subscriber' || t.n || '@example.com',
         'First' || t.n, 'Last' || t.n, '+44 20 7946 ' || lpad((t.n % 10000)::text, 4, '0'),
         (ARRAY['London', 'Paris', 'Berlin', 'Lisbon'])[1 + t.n % 4], 'GB',
         CASE WHEN t.n % 3 = 0 THEN timestamptz '1990-01-01' + t.n * interval '1 day' END,
         'Europe/London', ARRAY['news', 'product'], ARRAY['imported', 'tier-' || t.n % 5],
         jsonb_build_object('plan', 'pro', 'score', t.n % 100, 'source', 'import'),
         jsonb_build_array(jsonb_build_object('platform', 'twitter', 'profile_id', 'user' || t.n)),
         t.n % 40, t.n % 38, t.n % 17, t.n % 5, t.n * 13,
         $3::timestamptz, $4::timestamptz + t.n * interval '1 millisecond',
         $4::timestamptz + t.n * interval '1 millisecond'
       FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n)`,
      [ids, accountId, new Date(), new Date(start - 1)],
    ),
  );
}

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
}

/** Starts a server as its own process and waits (bounded) until GET /health answers 200. */
async function startServer(name: string, args: string[], port: number): Promise<Server> {
  const { child, output } = bench.start(args, { PORT: String(port) }, true);
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) break;
    const status = await fetch(`${url}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { name, url, child, output };
    await new Promise((wake) => setTimeout(wake, 200));
  }
  throw new Error(`${name} did not become healthy:\n${output.join('')}`);
}

async function get(server: Server, path: string, key: string): Promise<string> {
  const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } });
  const body = await response.text();
  if (response.status === 200) return body;
  throw new Error(`${server.name} ${path}: ${response.status} ${body}`);
}

/**
 * The comparison is only fair if both do the same work, so both must return the same bytes:
 * same fields, same values, same signed cursor (same secret). Checked on pages 1 and 2.
 */
async function checkSameAnswers(servers: Server[], key: string): Promise<void> {
  let path = PATH;
  for (let page = 1; page <= 2; page++) {
    const [herald, baseline] = await Promise.all(servers.map((server) => get(server, path, key)));
    if (herald !== baseline) {
      throw new Error(
        `page ${page} differs:\nherald:   ${herald.slice(0, 600)}\nbaseline: ${baseline.slice(0, 600)}`,
      );
    }
    const parsed = JSON.parse(herald) as { data: unknown[]; next_cursor: string };
    if (parsed.data.length !== 25 || !parsed.next_cursor) throw new Error('unexpected page shape');
    path = `${PATH}&cursor=${encodeURIComponent(parsed.next_cursor)}`;
  }
}

// ---- measuring --------------------------------------------------------------------------

interface Result {
  reqPerSec: number;
  p50: number;
  p99: number;
  /** CPU time (user + system) of the server process per request: steadier than req/s on a
   *  shared machine, since it does not depend on what else gets the cores meanwhile. */
  cpuMsPerReq: number | undefined;
}

/** User + system CPU ms of a process so far, from /proc (Linux; 100 ticks/s); else undefined. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** autocannon in its own process (not ours), JSON out; any non-2xx or error voids the run. */
async function measure(
  server: Server,
  key: string,
  connections: number,
  seconds: number,
): Promise<Result> {
  const cpuBefore = cpuMs(server.child.pid);
  const load = ['-c', String(connections), '-d', String(seconds), '-j', '-n'];
  const target = ['-H', `authorization=Bearer ${key}`, server.url + PATH];
  const cannon = ['node_modules/autocannon/autocannon.js', ...load, ...target];
  const stdout = await bench.run(process.execPath, cannon, { timeoutMs: (seconds + 60) * 1000 });
  const cpuAfter = cpuMs(server.child.pid);
  const out = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  if (out.non2xx || out.errors || out.timeouts) {
    throw new Error(
      `${server.name}: ${out.non2xx} non-2xx, ${out.errors} errors, ${out.timeouts} timeouts`,
    );
  }
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  return {
    reqPerSec: out.requests.average,
    p50: out.latency.p50,
    p99: out.latency.p99,
    cpuMsPerReq: cpu === undefined ? undefined : cpu / out.requests.total,
  };
}

async function main(): Promise<void> {
  console.log('building…');
  await bench.build();

  console.log(`database ${bench.database}: migrating, creating account and key, seeding…`);
  await bench.migrate();
  const account = await bench.cli('accounts', 'create', '--name', 'Bench');
  const keyArgs = ['--account', account.id, '--name', 'bench', '--scopes', 'subscribers:read'];
  const { key } = await bench.cli('keys', 'create', ...keyArgs);
  await seed(account.id);
  await withClient(env.DATABASE_URL, (db) => db.query('VACUUM ANALYZE subscribers, api_keys'));

  // Herald's main.ts binds 0.0.0.0 (not ours to change); we only ever connect over 127.0.0.1.
  const herald = await startServer(
    'herald',
    [...API_FLAGS, ...NODE_ARGS, 'dist/main.js', '--api-only'],
    await freePort(),
  );
  const baseline = await startServer(
    'baseline',
    [...NODE_ARGS, '-r', '@swc-node/register', 'bench/api-list/baseline-server.ts'],
    await freePort(),
  );
  const servers = [herald, baseline];
  await checkSameAnswers(servers, key);
  console.log('both servers return identical JSON for pages 1 and 2');
  console.log(`herald runs with the start:api flags: ${API_FLAGS.join(' ') || '(none)'}`);

  const results: { connections: number; herald: Result; baseline: Result }[] = [];
  for (const connections of CONNECTIONS) {
    // Warm-up (JIT, connection pools, plan caches), then pairs in ABBA order so that drift
    // over the run (autovacuum, CPU frequency, other work on the machine) hits both alike;
    // each server's best run is reported.
    console.log(
      `\n${connections} connections: warm-up ${WARMUP_SECONDS} s each (discarded), ` +
        `then ${ROUNDS} rounds of ${SECONDS} s each:`,
    );
    for (const server of servers) await measure(server, key, connections, WARMUP_SECONDS);
    const best = new Map<Server, Result>();
    const order = Array.from({ length: ROUNDS }, (_, round) =>
      round % 2 === 0 ? [herald, baseline] : [baseline, herald],
    ).flat();
    for (const server of order) {
      const result = await measure(server, key, connections, SECONDS);
      console.log(`  ${server.name.padEnd(8)} ${row(result)}`);
      if (result.reqPerSec > (best.get(server)?.reqPerSec ?? -1)) best.set(server, result);
    }
    results.push({ connections, herald: best.get(herald)!, baseline: best.get(baseline)! });
  }

  console.log(
    `\nGET ${PATH}, ${SUBSCRIBERS} subscribers, ${ROUNDS} rounds in ABBA order; ` +
      `best run of each (targets: req/s ratio >= ${TARGET_THROUGHPUT.toFixed(2)}, ` +
      `p99 ratio <= ${TARGET_P99}):\n`,
  );
  console.log(
    `conns server   ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ` +
      `cpu ms/req  ratio req/s  ratio p99`,
  );
  let allMet = true;
  for (const { connections, herald: h, baseline: b } of results) {
    const throughput = h.reqPerSec / b.reqPerSec;
    const p99 = h.p99 / b.p99;
    const met = throughput >= TARGET_THROUGHPUT && p99 <= TARGET_P99;
    allMet &&= met;
    const ratios = `${throughput.toFixed(2).padStart(11)} ${p99.toFixed(2).padStart(10)}`;
    console.log(`${String(connections).padStart(5)} herald   ${row(h)}    ${ratios}`);
    console.log(`${String(connections).padStart(5)} baseline ${row(b)}`);
    console.log(`      ${met ? 'meets the targets' : 'BELOW a target'}`);
  }
  console.log(allMet ? '\nall targets met' : '\nsome targets NOT met');
}

function row(r: Result): string {
  const cpu = r.cpuMsPerReq === undefined ? '-' : r.cpuMsPerReq.toFixed(2);
  return [r.reqPerSec.toFixed(0), String(r.p50), String(r.p99), cpu]
    .map((cell) => cell.padStart(7))
    .join(' ');
}

bench.main(main);
