// `npm run bench:campaign-send`: a campaign to N subscribers through Herald (API --api-only and
// separate worker processes, both compiled, the workers as `npm run start:worker` runs them)
// into an smtp-server sink on loopback (sink.ts), against a raw baseline in the same run, to
// the same sink: the same messages, byte for byte as Herald builds them and DKIM-signed with
// the same key, built before the clock starts and then only handed to a nodemailer pool
// (raw-blast.ts: the practical limit of the wire). Like with like:
// - the account's sender domain is verified (stored as the domains module stores it, see
//   verified-domain.ts), so Herald signs every message with its DKIM key as in production; the
//   sink checks that every message of both contenders begins with a DKIM-Signature and
//   verifies the first one's signature against the domain's public key;
// - the baseline runs in as many processes as Herald has workers (BENCH_WORKERS), each with
//   the same SMTP pool (BENCH_POOL): equal connections per process and in total;
// - the sink prints the bytes per message of each, which must match.
//
// Default mode, per audience size: raw, then BENCH_ROUNDS × (Herald, raw), each Herald run a
// new campaign to the same audience with fresh workers. Printed per size: every run, then the
// medians of each contender and their ratio (target ≥ 0.9), the time from the 202 to the first
// message at the sink (median; target < 200 ms), the workers' highest peak RSS (VmHWM;
// < 150 MiB, flat in N), duplicates and losses at the sink, and where the CPU went (the
// machine's and per process group), and what PostgreSQL wrote per message.
//
// BENCH_SEQUENCE=1: the sequence of sequence.ts instead (one database: a campaign with one
// worker, the baseline, a second campaign with two new workers, then transactional sends at
// 50/s alongside a third campaign, with p50/p99 from request to arrival at the sink); its
// header comment has the details.
//
// With BENCH_WEBHOOK=1, every size is sent twice by Herald per round: once as above, once more (a
// new campaign to the same audience) with one webhook endpoint subscribed to every event, served by a
// loopback receiver in this process; both rates are printed with their ratio (target ≥ 0.90),
// and how long the receiver took to get every event of the send (2 per message + 2).
// BENCH_ROUNDS=R (1) repeats that pair R times in ABBA order (without, with; with, without; …)
// so a load that drifts during the run weighs on both alike; the ratio is of the medians.
//
// A send whose messages stop arriving for BENCH_STALL_SECONDS fails the bench with what
// PostgreSQL was running at that moment (after cancelling it), rather than waiting.
//
// Env (optional): BENCH_SIZES (20000,100000; 1000000 works too), BENCH_ROUNDS (1),
// BENCH_RAW (1; 0: Herald only, no baseline and no ratio), BENCH_WORKERS (1) worker processes
// and as many baseline processes, BENCH_POOL (8) SMTP connections per process of either,
// BENCH_STALL_SECONDS (30), BENCH_NODE_ARGS (none; the workers' Node flags), BENCH_API_NODE_ARGS
// (none; the API's), PG_SERVER
// (postgresql://postgres@127.0.0.1:5432), REDIS_URL.
//
// Steps: build → throwaway database → migrate → sink and API processes → per size: account,
// key and verified domain, seed, the runs → table → clean up (processes, database, Redis keys;
// also on failure and Ctrl-C).

import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { CpuUse } from '../support/cpu-meter';
import { BenchHarness, sleep, Started } from '../support/harness';
import { withClient } from '../support/stores';
import {
  api,
  assertVerified,
  BaselineResult,
  BenchAccount,
  cancelActiveStatements,
  createAccount,
  createCampaign,
  describeBaseline,
  describeSend,
  peakRssMiB,
  runBaseline,
  seed,
  SendResult,
  sendCampaign,
  Sink,
  Stalled,
  startApi,
  startWorkers,
} from './rig';
import { runSequence } from './sequence';

const SIZES = (process.env.BENCH_SIZES ?? '20000,100000').split(',').map(Number);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const POOL = Number(process.env.BENCH_POOL ?? 8);
const WEBHOOK = process.env.BENCH_WEBHOOK === '1';
const SEQUENCE = process.env.BENCH_SEQUENCE === '1';
const STALL_MS = Number(process.env.BENCH_STALL_SECONDS ?? 30) * 1000;
/**
 * Herald runs per size. Without a webhook each is followed by a raw run (BENCH_ROUNDS=2: raw,
 * Herald, raw, Herald, raw); with BENCH_WEBHOOK=1, pairs without and with the webhook in ABBA
 * order, between one raw run before and one after.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
/** BENCH_RAW=0: Herald only (profiles, RSS), no baseline and no ratio. */
const RAW = process.env.BENCH_RAW !== '0';

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
  const { rows } = await withClient(env.DATABASE_URL, (db) =>
    db.query<{ relname: string; writes: string }>(
      `SELECT relname, (n_tup_ins + n_tup_upd + n_tup_del)::text AS writes
         FROM pg_stat_user_tables`,
    ),
  );
  return new Map(rows.map((row) => [row.relname, Number(row.writes)]));
}

/**
 * The counters once they show at least `messages` writes to campaign_recipients since `before`
 * (every message writes its ledger row): backends report their counters only when idle, and
 * not more than once a second. Undefined if they do not within 15 s.
 */
async function tableWritesCovering(
  before: Map<string, number>,
  messages: number,
): Promise<Map<string, number> | undefined> {
  const key = 'campaign_recipients';
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(250)) {
    const now = await tableWrites();
    if ((now.get(key) ?? 0) - (before.get(key) ?? 0) >= messages) return now;
  }
  return undefined;
}

/** `table rows/msg` for every table written between two snapshots, busiest first. */
function describeWrites(
  before: Map<string, number>,
  after: Map<string, number> | undefined,
  messages: number,
): string {
  if (!after) return '(the counters did not catch up within 15 s)';
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

interface HeraldResult extends SendResult {
  peakRssMiB: number[];
  writesDuringSend: string;
  /** With a webhook endpoint: from the 202 until the receiver had every event of the send. */
  webhooksDoneMs?: number;
  writesUntilEvents?: string;
}

interface Services {
  sink: Sink;
  server: Started;
  base: string;
}

/** One campaign to the whole audience with fresh workers; they are stopped afterwards. */
async function runHerald(
  services: Services,
  account: BenchAccount,
  campaignId: string,
  size: number,
  receiver?: Receiver,
): Promise<HeraldResult> {
  const { sink } = services;
  const workers = await startWorkers(bench, WORKERS, sink.url(POOL));
  try {
    const receiverBase = receiver?.count ?? 0;
    const writesBefore = await tableWrites();
    const result = await sendCampaign(
      {
        sink,
        base: services.base,
        apiPid: services.server.child.pid,
        databaseUrl: env.DATABASE_URL,
      },
      account,
      campaignId,
      size,
      workers,
      { stallMs: STALL_MS },
    );
    const peaks = workers.map(({ child }) => peakRssMiB(child.pid));
    const writesAfterSend = await tableWritesCovering(writesBefore, size);
    // email.sent and email.delivered per message, campaign.sending and campaign.sent.
    const webhooksDoneMs = receiver
      ? (await receiver.waitFor(receiverBase + 2 * size + 2, 30 * 60_000)) - result.acceptedAt
      : undefined;
    // The delivery log's last results are written a moment after the receiver answered.
    const writesAfterEvents = receiver ? await tableWritesCovering(writesBefore, size) : undefined;
    return {
      ...result,
      peakRssMiB: peaks,
      writesDuringSend: describeWrites(writesBefore, writesAfterSend, size),
      writesUntilEvents: receiver && describeWrites(writesBefore, writesAfterEvents, size),
      webhooksDoneMs,
    };
  } finally {
    await Promise.all(workers.map(({ child }) => bench.stop(child)));
  }
}

const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)] + sorted[Math.ceil(middle)]) / 2;
};

/** The runs' medians: the rate, the CPU per message and the time until every event arrived. */
function median(results: HeraldResult[]) {
  return {
    messagesPerSec: medianOf(results.map((r) => r.messagesPerSec)),
    cpuMsPerMessage: medianOf(results.map((r) => r.cpuMsPerMessage)),
    webhooksDoneMs: medianOf(results.map((r) => r.webhooksDoneMs ?? 0)),
  };
}

async function standard(): Promise<void> {
  console.log('building…');
  await bench.build();
  console.log(`database ${bench.database}: migrating…`);
  await bench.migrate();

  const sink = await Sink.start(bench);
  const { server, base } = await startApi(bench);
  const services: Services = { sink, server, base };

  const rows: string[] = [];
  const webhookRows: string[] = [];
  for (const size of SIZES) {
    const account = await createAccount(bench, `Bench ${size}`);
    await assertVerified(base, account);
    console.log(`\n${size} subscribers: seeding…`);
    await seed(env.DATABASE_URL, account.id, size);
    const newCampaign = () => createCampaign(base, account.key, `Bench ${size}`);
    let next = await newCampaign();
    // Raw runs frame Herald's, so drifting load on the machine weighs on both alike.
    const raws: BaselineResult[] = [];
    const rawRun = async () => {
      if (!RAW) return;
      const raw = await runBaseline(bench, sink, account, next, size, WORKERS, POOL);
      raws.push(raw);
      console.log(`  raw: ${describeBaseline(raw, size)}`);
    };
    const heraldRun = async (receiver?: Receiver) => {
      const campaignId = next;
      next = await newCampaign();
      return runHerald(services, account, campaignId, size, receiver);
    };
    const describe = (result: HeraldResult) =>
      `${describeSend(result, size, result.peakRssMiB)}\n` +
      `    PostgreSQL during the send: ${result.writesDuringSend}`;
    const plain: HeraldResult[] = [];
    const hooked: HeraldResult[] = [];
    let webhook: { receiver: Receiver; id: string } | undefined;
    const runPlain = async () => {
      if (webhook) {
        await api(base, account.key, 'PATCH', `/v1/webhooks/${webhook.id}`, { enabled: false });
      }
      const result = await heraldRun();
      console.log(`  herald: ${describe(result)}`);
      plain.push(result);
    };
    const runHooked = async () => {
      if (webhook) {
        await api(base, account.key, 'PATCH', `/v1/webhooks/${webhook.id}`, { enabled: true });
      } else {
        const receiver = await Receiver.start();
        const created = await api(base, account.key, 'POST', '/v1/webhooks', {
          url: receiver.url,
          events: EVERY_EVENT,
        });
        webhook = { receiver, id: created.id as string };
      }
      const result = await heraldRun(webhook.receiver);
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
    const herald = median(plain);
    const rawRate = raws.length > 0 ? medianOf(raws.map((r) => r.messagesPerSec)) : undefined;
    const rawCpu = raws.length > 0 ? medianOf(raws.map((r) => r.cpuMsPerMessage)) : undefined;
    // The machine's CPU per message: when every core is busy in both, the rate's ratio can be
    // no better than theirs.
    const machine = (cpus: CpuUse[]) => medianOf(cpus.map((cpu) => cpu.machineMs / size));
    const machineRaw = raws.length > 0 ? machine(raws.map((r) => r.cpu)) : undefined;
    const machineHerald = machine(plain.map((r) => r.cpu));
    const fixed = (value: number | undefined, digits: number) =>
      value === undefined ? '-' : value.toFixed(digits);
    rows.push(
      [
        String(size).padStart(8),
        fixed(rawRate, 0).padStart(8),
        herald.messagesPerSec.toFixed(0).padStart(8),
        fixed(rawRate && herald.messagesPerSec / rawRate, 2).padStart(6),
        fixed(rawCpu && rawCpu / herald.cpuMsPerMessage, 2).padStart(9),
        herald.cpuMsPerMessage.toFixed(2).padStart(10),
        fixed(rawCpu, 2).padStart(7),
        medianOf(plain.map((run) => run.firstMessageMs))
          .toFixed(0)
          .padStart(9),
        fixed(machineRaw, 2).padStart(11),
        machineHerald.toFixed(2).padStart(14),
        fixed(machineRaw && machineRaw / machineHerald, 2).padStart(13),
        Math.max(...plain.flatMap((run) => run.peakRssMiB))
          .toFixed(0)
          .padStart(9),
        String(plain.reduce((sum, run) => sum + run.duplicates, 0)).padStart(5),
        String(plain.reduce((sum, run) => sum + run.lost, 0)).padStart(5),
      ].join(' '),
    );
  }

  console.log(
    `\nHerald: ${WORKERS} worker process(es) × ${POOL} SMTP connections; raw: ${WORKERS} ` +
      `process(es) × ${POOL} connections, sending the same DKIM-signed bytes, built before its clock.\n` +
      `Per size: ${ROUNDS} Herald run(s)${RAW ? ` and ${ROUNDS + 1} raw run(s), alternating` : ''}; ` +
      'rates, CPU ms/msg and first: the median of the runs (all runs are listed above); ' +
      'ratio: of those medians, measured in this run; RSS: the highest peak; dup/lost: summed over the runs',
  );
  console.log(
    '       N    raw/s herald/s  ratio cpu-ratio herald-cpu raw-cpu first(ms) machine-raw machine-herald machine-ratio  RSS(MiB)   dup  lost',
  );
  for (const row of rows) console.log(row);
  console.log(
    'targets: ratio ≥ 0.90, first message < 200 ms, RSS < 150 MiB and flat across N, 0 duplicates, 0 lost',
  );
  if (webhookRows.length > 0) {
    console.log('\nwith one webhook endpoint subscribed to every event:');
    console.log(
      `       N herald/s +webhook/s  ratio events(s)   (medians of ${ROUNDS} ABBA round(s))`,
    );
    for (const row of webhookRows) console.log(row);
    console.log('target: ratio ≥ 0.90; events(s): from the 202 until the receiver had them all');
  }
  console.log(
    'cpu-ratio: raw sender CPU ms/msg ÷ Herald worker CPU ms/msg (the same ratio, free of other load)',
  );
  console.log(
    'machine-*: CPU ms/msg of the whole machine (sender, sink, PostgreSQL, Redis, all else);\n' +
      'machine-ratio: raw ÷ Herald, the best ratio possible when both runs keep every core busy',
  );
}

async function main(): Promise<void> {
  try {
    await (SEQUENCE ? runSequence(bench) : standard());
  } catch (error) {
    // What a stalled send left running would keep PostgreSQL busy until the database is
    // dropped: cancel it first, so the clean-up does not wait behind it.
    if (error instanceof Stalled) {
      const cancelled = await cancelActiveStatements(env.DATABASE_URL).catch(() => 0);
      console.error(`cancelled ${cancelled} statement(s) still running`);
    }
    throw error;
  }
}

bench.main(main);
