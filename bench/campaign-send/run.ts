// `npm run bench:campaign-send`: one campaign to N subscribers through Herald (API
// --api-only + a separate worker process, both compiled) into an smtp-server sink that only
// counts, and, in the same run against the same sink, a bare nodemailer pool blasting N
// pre-rendered messages (raw-blast.ts: the practical limit). For each audience size prints
// messages/s of both, their ratio (target ≥ 0.9), the time from the 202 to the first message
// at the sink (target < 200 ms), and the worker's peak RSS (VmHWM; < 150 MiB, flat in N).
//
// With BENCH_WEBHOOK=1, every size is sent twice by Herald: once as above, once more (a new
// campaign to the same audience) with one webhook endpoint subscribed to every event, served by a
// loopback receiver in this process; both rates are printed with their ratio (target ≥ 0.90),
// and how long the receiver took to get every event of the send (2 per message + 2).
// BENCH_ROUNDS=R (1) repeats that pair R times in ABBA order (without, with; with, without; …)
// so a load that drifts during the run weighs on both alike; the ratio is of the medians.
// Every Herald run also prints what PostgreSQL wrote per message (rows inserted, updated and
// deleted per table of the bench database, while the mail went out and until every event
// was received): the database's share of the cost, which worker CPU does not show.
//
// Env (optional): BENCH_SIZES (20000,100000; 1000000 works too, each size with a fresh worker
// whose peak RSS is printed), BENCH_ROUNDS (1), BENCH_RAW (1), BENCH_WORKERS (1) worker processes,
// BENCH_POOL (8) SMTP connections per process for both contenders, BENCH_NODE_ARGS (none),
// PG_SERVER (postgresql://postgres@127.0.0.1:5432), REDIS_URL.
//
// Steps: build → throwaway database → migrate → account + key through the CLI → sink and API
// processes → per size: seed, raw blast, Herald campaign (fresh worker) → table → clean up
// (also on failure and Ctrl-C).

import { ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { newId } from '../../src/platform/crypto/ids';
import { CpuMeter, CpuUse, pidsNamed, processCpuMs } from '../support/cpu-meter';
import { BenchHarness, freePort, ROOT, sleep, Started, workerCommand } from '../support/harness';
import { withClient } from '../support/stores';

const SIZES = (process.env.BENCH_SIZES ?? '20000,100000').split(',').map(Number);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const POOL = Number(process.env.BENCH_POOL ?? 8);
const WEBHOOK = process.env.BENCH_WEBHOOK === '1';
/**
 * Herald runs per size. Without a webhook each is followed by a raw run (BENCH_ROUNDS=2: raw,
 * Herald, raw, Herald, raw); with BENCH_WEBHOOK=1, pairs without and with the webhook in ABBA
 * order, between one raw run before and one after.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
/** BENCH_RAW=0: Herald only (profiles, RSS), no baseline and no ratio. */
const RAW = process.env.BENCH_RAW !== '0';
const WORKER = workerCommand();

const bench = new BenchHarness(
  {
    PUBLIC_URL: 'https://herald.example',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: '1000000',
    RATE_LIMIT_SEND: '1000000',
    // The webhook receiver runs on loopback.
    WEBHOOK_ALLOW_PRIVATE: '1',
  },
  600_000,
);
const env = bench.env;
const start = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => bench.start(args, extraEnv);

/** Peak resident set size of a process in MiB (Linux /proc VmHWM). */
function peakRssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

// ---- the sink ------------------------------------------------------------------------------

interface SinkStats {
  count: number;
  firstAt: number;
  lastAt: number;
}

class Sink {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(): Promise<Sink> {
    const child = fork(resolve(__dirname, 'sink.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', '@swc-node/register'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    bench.adopt(child);
    const [message] = (await once(child, 'message')) as [{ port: number }];
    return new Sink(child, `smtp://127.0.0.1:${message.port}?maxConnections=${POOL}`);
  }

  private ask<T>(type: string, answer: string): Promise<T> {
    return new Promise((done) => {
      const listen = (message: { type: string }) => {
        if (message.type !== answer) return;
        this.child.off('message', listen);
        done(message as T);
      };
      this.child.on('message', listen);
      this.child.send({ type });
    });
  }

  reset = () => this.ask<unknown>('reset', 'ready');
  stats = () => this.ask<SinkStats>('stats', 'stats');

  async waitFor(count: number, timeoutMs: number): Promise<SinkStats> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stats = await this.stats();
      if (stats.count >= count) return stats;
      if (Date.now() > deadline) throw new Error(`sink got ${stats.count} of ${count}`);
      await sleep(50);
    }
  }
}

// ---- the webhook receiver -----------------------------------------------------------------

/** Counts webhook requests (answering 200 at once); verification is the e2e tests' business. */
class Receiver {
  private constructor(
    readonly url: string,
    private readonly counts: { count: number; lastAt: number },
  ) {}

  get count(): number {
    return this.counts.count;
  }

  static async start(): Promise<Receiver> {
    const counts = { count: 0, lastAt: 0 };
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        counts.count++;
        counts.lastAt = Date.now();
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    server.unref();
    return new Receiver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, counts);
  }

  async waitFor(count: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.count < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${this.count} of ${count}`);
      await sleep(100);
    }
    return this.counts.lastAt;
  }
}

const EVERY_EVENT = [
  'email.sent',
  'email.delivered',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'subscriber.created',
  'subscriber.updated',
  'subscriber.unsubscribed',
  'subscriber.erased',
  'campaign.sending',
  'campaign.sent',
];

// ---- what PostgreSQL wrote ------------------------------------------------------------------

/** Rows inserted + updated + deleted so far, per table of the bench database. */
async function tableWrites(): Promise<Map<string, number>> {
  // Backends report their counters when idle, at most once a second: wait for that.
  await sleep(1_500);
  const { rows } = await withClient(env.DATABASE_URL, (db) =>
    db.query<{ relname: string; writes: string }>(
      `SELECT relname, (n_tup_ins + n_tup_upd + n_tup_del)::text AS writes
         FROM pg_stat_user_tables`,
    ),
  );
  return new Map(rows.map((row) => [row.relname, Number(row.writes)]));
}

/** `table rows/msg` for every table written between two snapshots, busiest first. */
function describeWrites(
  before: Map<string, number>,
  after: Map<string, number>,
  messages: number,
): string {
  const written = [...after]
    .map(([table, n]) => [table, (n - (before.get(table) ?? 0)) / messages] as const)
    .filter(([, perMessage]) => perMessage >= 0.005)
    .sort((a, b) => b[1] - a[1]);
  const total = written.reduce((sum, [, perMessage]) => sum + perMessage, 0);
  return (
    `${total.toFixed(2)} rows/msg (` +
    written.map(([table, perMessage]) => `${table} ${perMessage.toFixed(2)}`).join(', ') +
    ')'
  );
}

// ---- Herald ------------------------------------------------------------------------------

async function seed(accountId: string, count: number): Promise<void> {
  const start = Date.now() - count;
  for (let offset = 0; offset < count; offset += 20_000) {
    const ids = Array.from({ length: Math.min(20_000, count - offset) }, (_, i) =>
      newId(start + offset + i),
    );
    await withClient(env.DATABASE_URL, (db) =>
      db.query(
        `INSERT INTO subscribers (id, account_id, email, email_normalized, first_name, last_name,
           city, country_code, tags, custom_fields)
         SELECT t.id, $2, 'subscriber' || ($3 + t.n) || '@example.com',
           'subscriber' || ($3 + t.n) || '@example.com', 'First' || ($3 + t.n), 'Last' || t.n,
           'London', 'GB', ARRAY['news'], jsonb_build_object('plan', 'pro')
         FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n)`,
        [ids, accountId, offset],
      ),
    );
  }
  await withClient(env.DATABASE_URL, (db) => db.query('ANALYZE subscribers'));
}

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

interface HeraldResult {
  messagesPerSec: number;
  /** With a webhook endpoint: from the 202 until the receiver had every event of the send. */
  webhooksDoneMs?: number;
  /** Worker CPU per message: steadier than msg/s when other work shares the cores. */
  cpuMsPerMessage: number;
  firstMessageMs: number;
  sentAfterMs: number;
  peakRssMiB: number[];
  /** What PostgreSQL wrote per message while the mail went out, and until every event arrived. */
  writesDuringSend: string;
  /** From the send to the last message at the sink: the machine's CPU and its parts. */
  cpu: CpuUse;
  writesUntilEvents?: string;
}

/** The processes whose CPU a run accounts for, beside the whole machine's. */
function meterOf(sink: Sink, herald: Record<string, () => (number | undefined)[]> = {}) {
  return new CpuMeter({
    ...herald,
    sink: () => [sink.pid],
    postgres: () => pidsNamed('postgres'),
    redis: () => pidsNamed('redis-server'),
  });
}

async function runHerald(
  sink: Sink,
  apiPid: number | undefined,
  base: string,
  key: string,
  accountSize: number,
  receiver?: Receiver,
): Promise<HeraldResult> {
  const workers: Started[] = [];
  for (let i = 0; i < WORKERS; i++) {
    const worker = start([...WORKER.args, 'dist/worker.js'], {
      ...WORKER.env,
      SMTP_URL: sink.url,
      LOG_LEVEL: 'info',
    });
    workers.push(worker);
  }
  // Ready once Nest has built the worker module, plus a moment for BullMQ to start polling.
  for (const { child, output } of workers) {
    for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
      if (output.join('').includes('CampaignWorkersModule dependencies initialized')) break;
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`worker did not start:\n${output.join('')}`);
      }
    }
  }
  await sleep(1500);

  const campaign = await api(base, key, 'POST', '/v1/campaigns', {
    name: `Bench ${accountSize}`,
    subject: 'News for {{first_name}}',
    from: 'Acme News <news@acme.example>',
    text: 'Hello {{first_name}},\n\nThis month at Acme: things.\n\nUnsubscribe: {{unsubscribe_url}}',
    html: '<html><body><p>Hello {{first_name}},</p><p>This month at <a href="https://acme.example/news">Acme</a>: things.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>',
  });
  await sink.reset();
  const receiverBase = receiver?.count ?? 0;
  const writesBefore = await tableWrites();
  const cpuBefore = workers.reduce((sum, { child }) => sum + (processCpuMs(child.pid) ?? 0), 0);
  const meter = meterOf(sink, {
    worker: () => workers.map(({ child }) => child.pid),
    api: () => [apiPid],
  });
  const machineBefore = meter.snapshot();
  await api(base, key, 'POST', `/v1/campaigns/${campaign.id as string}/send`);
  const accepted = Date.now();
  // A loaded machine (other work on the same cores) can bring the rate down to 50 msg/s.
  const stats = await sink.waitFor(accountSize, Math.max(300_000, accountSize * 20));
  const cpu = CpuMeter.between(machineBefore, meter.snapshot());
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    const progress = await api(base, key, 'GET', `/v1/campaigns/${campaign.id as string}/stats`);
    if (progress.status === 'sent') {
      if (progress.delivered !== accountSize) throw new Error(`stats: ${JSON.stringify(progress)}`);
      break;
    }
    if (Date.now() > deadline) throw new Error(`never sent: ${JSON.stringify(progress)}`);
  }
  const sentAfterMs = Date.now() - accepted;
  const extra = (await sink.stats()).count - accountSize;
  if (extra !== 0) throw new Error(`the sink got ${extra} messages more than recipients`);
  const peaks = workers.map(({ child }) => peakRssMiB(child.pid));
  const cpuAfter = workers.reduce((sum, { child }) => sum + (processCpuMs(child.pid) ?? 0), 0);
  const writesAfterSend = await tableWrites();
  // email.sent and email.delivered per message, campaign.sending and campaign.sent.
  const webhooksDoneMs = receiver
    ? (await receiver.waitFor(receiverBase + 2 * accountSize + 2, 30 * 60_000)) - accepted
    : undefined;
  // The delivery log's last results are written a moment after the receiver answered.
  const writesAfterEvents = receiver ? await tableWrites() : undefined;
  await Promise.all(workers.map(({ child }) => bench.stop(child)));
  return {
    writesDuringSend: describeWrites(writesBefore, writesAfterSend, accountSize),
    writesUntilEvents:
      writesAfterEvents && describeWrites(writesBefore, writesAfterEvents, accountSize),
    webhooksDoneMs,
    cpu,
    messagesPerSec: accountSize / ((stats.lastAt - accepted) / 1000),
    cpuMsPerMessage: (cpuAfter - cpuBefore) / accountSize,
    firstMessageMs: stats.firstAt - accepted,
    sentAfterMs,
    peakRssMiB: peaks,
  };
}

interface RawResult {
  messagesPerSec: number;
  cpuMsPerMessage: number;
  cpu: CpuUse;
}

async function runRaw(sink: Sink, count: number): Promise<RawResult> {
  await sink.reset();
  const meter = meterOf(sink);
  const before = meter.snapshot();
  const stdout = await bench.run(
    process.execPath,
    ['--max-semi-space-size=32', '-r', '@swc-node/register', 'bench/campaign-send/raw-blast.ts'],
    {
      extraEnv: {
        SMTP_URL: sink.url,
        COUNT: String(count),
      },
    },
  );
  const cpu = CpuMeter.between(before, meter.snapshot());
  const { elapsedMs, cpuMs: used } = JSON.parse(stdout) as { elapsedMs: number; cpuMs: number };
  cpu.groupsMs.set('client', used);
  const stats = await sink.stats();
  if (stats.count !== count) throw new Error(`raw: sink got ${stats.count} of ${count}`);
  return { messagesPerSec: count / (elapsedMs / 1000), cpuMsPerMessage: used / count, cpu };
}

/** The runs' medians: the rate, the CPU per message and the time until every event arrived. */
function median(results: HeraldResult[]) {
  const of = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = (sorted.length - 1) / 2;
    return (sorted[Math.floor(middle)] + sorted[Math.ceil(middle)]) / 2;
  };
  return {
    messagesPerSec: of(results.map((r) => r.messagesPerSec)),
    cpuMsPerMessage: of(results.map((r) => r.cpuMsPerMessage)),
    webhooksDoneMs: of(results.map((r) => r.webhooksDoneMs ?? 0)),
  };
}

function describeRaw(raw: RawResult, count: number): string {
  return (
    `${raw.messagesPerSec.toFixed(0)} msg/s, ${raw.cpuMsPerMessage.toFixed(2)} CPU ms/msg\n` +
    `    CPU: ${CpuMeter.describe(raw.cpu, count)}`
  );
}

async function main(): Promise<void> {
  console.log('building…');
  await bench.build();
  console.log(`database ${bench.database}: migrating, creating the key…`);
  await bench.migrate();
  const cli = (...args: string[]) => bench.cli(...args);

  const sink = await Sink.start();
  const port = await freePort();
  const server = start(['dist/main.js', '--api-only'], { PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
    const ok = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`API did not start:\n${server.output.join('')}`);
  }

  const rows: string[] = [];
  const webhookRows: string[] = [];
  for (const size of SIZES) {
    const account = await cli('accounts', 'create', '--name', `Bench ${size}`);
    const scopes = 'campaigns:read,campaigns:write,campaigns:send,stats:read,webhooks:write';
    const { key } = await cli(
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'bench',
      '--scopes',
      scopes,
    );
    console.log(`\n${size} subscribers: seeding…`);
    await seed(account.id, size);
    // Raw runs frame Herald's, so drifting load on the machine weighs on both; each is taken at
    // its best run.
    const raws: RawResult[] = [];
    const rawRun = async () => {
      if (!RAW) return;
      const raw = await runRaw(sink, size);
      raws.push(raw);
      console.log(`  raw nodemailer pool: ${describeRaw(raw, size)}`);
    };
    const describe = (result: HeraldResult) =>
      `${result.messagesPerSec.toFixed(0)} msg/s, ${result.cpuMsPerMessage.toFixed(2)} worker CPU ms/msg, ` +
      `first message ${result.firstMessageMs} ms after the 202, sent after ${(result.sentAfterMs / 1000).toFixed(1)} s, ` +
      `worker peak RSS ${result.peakRssMiB.map((m) => m.toFixed(0)).join(' + ')} MiB\n` +
      `    PostgreSQL during the send: ${result.writesDuringSend}\n` +
      `    CPU: ${CpuMeter.describe(result.cpu, size)}`;
    const plain: HeraldResult[] = [];
    const hooked: HeraldResult[] = [];
    let webhook: { receiver: Receiver; id: string } | undefined;
    const runPlain = async () => {
      if (webhook) await api(base, key, 'PATCH', `/v1/webhooks/${webhook.id}`, { enabled: false });
      const result = await runHerald(sink, server.child.pid, base, key, size);
      console.log(`  herald: ${describe(result)}`);
      plain.push(result);
    };
    const runHooked = async () => {
      if (webhook) {
        await api(base, key, 'PATCH', `/v1/webhooks/${webhook.id}`, { enabled: true });
      } else {
        const receiver = await Receiver.start();
        const created = await api(base, key, 'POST', '/v1/webhooks', {
          url: receiver.url,
          events: EVERY_EVENT,
        });
        webhook = { receiver, id: created.id as string };
      }
      const result = await runHerald(sink, server.child.pid, base, key, size, webhook.receiver);
      console.log(
        `  herald + webhook: ${describe(result)}\n` +
          `    every event received ${((result.webhooksDoneMs ?? 0) / 1000).toFixed(1)} s after the 202; ` +
          `PostgreSQL until then: ${result.writesUntilEvents}`,
      );
      hooked.push(result);
    };
    await rawRun();
    for (let round = 0; round < ROUNDS; round++) {
      if (!WEBHOOK) await runPlain().then(rawRun);
      // ABBA: without, with; with, without; …
      else if (round % 2 === 0) await runPlain().then(runHooked);
      else await runHooked().then(runPlain);
    }
    if (WEBHOOK) {
      await rawRun();
      const withHook = median(hooked);
      const without = median(plain);
      const rates = (results: HeraldResult[]) =>
        results.map((r) => r.messagesPerSec.toFixed(0)).join('/');
      const ratio = withHook.messagesPerSec / without.messagesPerSec;
      console.log(
        `  with a webhook: ${(ratio * 100).toFixed(1)} % of the rate without (medians of ` +
          `${rates(hooked)} and ${rates(plain)} msg/s); worker CPU ` +
          `${without.cpuMsPerMessage.toFixed(2)} → ${withHook.cpuMsPerMessage.toFixed(2)} ms/msg`,
      );
      webhookRows.push(
        [
          String(size).padStart(8),
          without.messagesPerSec.toFixed(0).padStart(8),
          withHook.messagesPerSec.toFixed(0).padStart(9),
          ratio.toFixed(2).padStart(6),
          ((withHook.webhooksDoneMs ?? 0) / 1000).toFixed(1).padStart(11),
        ].join(' '),
      );
    }
    const best = <T>(runs: T[], score: (run: T) => number) =>
      runs.reduce((a, b) => (score(b) > score(a) ? b : a));
    const herald = best(plain, (run) => run.messagesPerSec);
    const heraldCpu = Math.min(...plain.map((run) => run.cpuMsPerMessage));
    const firsts = plain.map((run) => run.firstMessageMs).sort((a, b) => a - b);
    const raw = raws.length > 0 ? best(raws, (run) => run.messagesPerSec) : undefined;
    const rawCpu = Math.min(...raws.map((run) => run.cpuMsPerMessage));
    // The machine's CPU per message of the best runs: when every core is busy in both, the
    // rate's ratio can be no better than theirs.
    const machine = (cpu: CpuUse) => cpu.machineMs / size;
    rows.push(
      [
        String(size).padStart(8),
        (raw?.messagesPerSec.toFixed(0) ?? '-').padStart(8),
        herald.messagesPerSec.toFixed(0).padStart(8),
        (raw ? (herald.messagesPerSec / raw.messagesPerSec).toFixed(2) : '-').padStart(6),
        (raw ? (rawCpu / heraldCpu).toFixed(2) : '-').padStart(9),
        heraldCpu.toFixed(2).padStart(10),
        (raw ? rawCpu.toFixed(2) : '-').padStart(7),
        String(firsts[Math.floor((firsts.length - 1) / 2)]).padStart(9),
        (raw ? machine(raw.cpu).toFixed(2) : '-').padStart(11),
        machine(herald.cpu).toFixed(2).padStart(14),
        (raw ? (machine(raw.cpu) / machine(herald.cpu)).toFixed(2) : '-').padStart(13),
        Math.max(...plain.flatMap((run) => run.peakRssMiB))
          .toFixed(0)
          .padStart(9),
      ].join(' '),
    );
  }

  console.log(
    `\n${WORKERS} worker process(es), SMTP pool ${POOL} per process, ${ROUNDS} Herald run(s) per size between raw runs; ` +
      'rates: the best run of each; CPU ms/msg: the least of each; first: the median; RSS: the highest peak',
  );
  console.log(
    '       N    raw/s herald/s  ratio cpu-ratio herald-cpu raw-cpu first(ms) machine-raw machine-herald machine-ratio  RSS(MiB)',
  );
  for (const row of rows) console.log(row);
  console.log('targets: ratio ≥ 0.90, first message < 200 ms, RSS < 150 MiB and flat across N');
  if (webhookRows.length > 0) {
    console.log('\nwith one webhook endpoint subscribed to every event:');
    console.log(
      `       N herald/s +webhook/s  ratio events(s)   (medians of ${ROUNDS} ABBA round(s))`,
    );
    for (const row of webhookRows) console.log(row);
    console.log('target: ratio ≥ 0.90; events(s): from the 202 until the receiver had them all');
  }
  console.log(
    'cpu-ratio: raw CPU ms/msg ÷ Herald worker CPU ms/msg (the same ratio, free of other load)',
  );
  console.log(
    'machine-*: CPU ms/msg of the whole machine (sender, sink, PostgreSQL, Redis, all else);\n' +
      'machine-ratio: raw ÷ Herald, the best ratio possible when both runs keep every core busy',
  );
}

bench.main(main);
