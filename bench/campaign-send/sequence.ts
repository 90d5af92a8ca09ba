// `BENCH_SEQUENCE=1 npm run bench:campaign-send`: the send path as it is used over time, on ONE
// database holding N subscribers (BENCH_SUBSCRIBERS, 20000), each step after the last:
//   (a) a campaign to all of them with one new worker process;
//   (b) the raw baseline (raw-blast.ts: the same DKIM-signed bytes, built before its clock)
//       twice: in one process, then in two, each with BENCH_POOL SMTP connections per
//       process, so each campaign is compared with a baseline of its own shape;
//   (c) a second campaign to the same N with two new worker processes (the ledger now holds
//       the first campaign, and the planner's statistics describe it);
//   (d) a third campaign to the same N, sent by (c)'s two workers, with transactional sends at
//       BENCH_TX_RATE (50) requests a second through the API (POST /v1/transactional/send, to
//       tx-<n>@example.com) issued from the campaign's 202 until it is sent;
//   (e) (d) again with the work split by WORKER_ROLES, as docs/operating.md advises where
//       transactional latency matters: two new campaign workers (`-transactional`) and one
//       new transactional worker (`transactional`) at nice 0.
// Each campaign prints its rate, the ratio against the baseline with as many processes as it
// has campaign workers, measured in this run, the first message's latency after the 202, the
// workers' peak RSS (VmHWM), and the duplicates and losses counted per recipient at the sink.
// Steps (d) and (e) also print p50 and p99 from each request to its message's arrival at the
// sink, and from request to the 202, with how many requests got no 202 (or none within 30 s),
// how many messages never arrived, and when the slowest 1 % were sent.
//
// A campaign whose messages stop arriving for BENCH_STALL_SECONDS (30) is a stall: the step
// reports what it delivered and the statements PostgreSQL was running, its workers are
// stopped, those statements cancelled, the steps not run are listed, and the bench exits 1.
//
// The API, the workers, PostgreSQL and the sink share the machine's cores, as on a single
// host: the workers run at WORKER_NICE (10 here unless set; 0 runs them at the API's
// priority), as docs/operating.md advises for API and workers on one host.
//
// Env (optional): BENCH_SUBSCRIBERS (20000), BENCH_POOL (8), BENCH_TX_RATE (50),
// BENCH_STALL_SECONDS (30), WORKER_NICE (10), BENCH_NODE_ARGS (the workers' Node flags),
// BENCH_API_NODE_ARGS (the API's), PG_SERVER, REDIS_URL.

import { BenchHarness, sleep, Started } from '../support/harness';
import {
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
  SENDER_DOMAIN,
  Stalled,
  startApi,
  startWorkers,
} from './rig';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 20_000);
const POOL = Number(process.env.BENCH_POOL ?? 8);
const TX_RATE = Number(process.env.BENCH_TX_RATE ?? 50);
const STALL_MS = Number(process.env.BENCH_STALL_SECONDS ?? 30) * 1000;
const WORKER_NICE = process.env.WORKER_NICE ?? '10';
/** A transactional request without an answer this long counts as unanswered. */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * The worker processes of a step: `workers` taking every kind of work, or, with
 * `transactionalWorker`, `workers` that leave transactional mail to one more of its own.
 */
interface Shape {
  workers: number;
  transactionalWorker?: boolean;
}

interface Step {
  label: string;
  /** Campaign workers: the baseline a campaign is compared with has as many processes. */
  workers: number;
  send?: SendResult;
  peaks?: number[];
  baseline?: BaselineResult;
  note?: string;
}

/** Open-loop transactional requests at a fixed rate, each timed to its 202 and to the sink. */
class TransactionalLoad {
  private readonly sentAt: number[] = [];
  private readonly answeredAt = new Map<number, number>();
  private readonly refused: string[] = [];
  private readonly requests: Promise<void>[] = [];
  private stopped = false;
  private issuing: Promise<void> | undefined;

  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly rate: number,
  ) {}

  start(): void {
    this.issuing = this.issue();
  }

  /** Stops issuing; resolves once every request issued has been answered (or timed out). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.issuing;
    await Promise.all(this.requests);
  }

  private async issue(): Promise<void> {
    const startedAt = Date.now();
    for (let n = 0; !this.stopped; n++) {
      // Request n goes out at its slot whatever became of the earlier ones (open loop).
      const due = startedAt + (n * 1000) / this.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      if (this.stopped) break;
      this.requests.push(this.send(n));
    }
  }

  private async send(n: number): Promise<void> {
    this.sentAt[n] = Date.now();
    try {
      const response = await fetch(`${this.base}/v1/transactional/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          to: `tx-${n}@example.com`,
          from: `Acme <hello@${SENDER_DOMAIN}>`,
          subject: `Your receipt ${n}`,
          text: `Thank you for your order ${n}.`,
          html: `<p>Thank you for your order <b>${n}</b>.</p>`,
        }),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      const body = (await response.json().catch(() => ({}))) as { error?: { code?: string } };
      if (response.status === 202) this.answeredAt.set(n, Date.now());
      else this.refused.push(`${response.status} ${body.error?.code ?? ''}`.trim());
    } catch (error) {
      this.refused.push(failure(error));
    }
  }

  get issued(): number {
    return this.sentAt.length;
  }

  get accepted(): number[] {
    return [...this.answeredAt.keys()];
  }

  /** The latencies, once `arrivals` (sink arrival time per recipient) is known. */
  report(arrivals: Map<string, number>): string {
    const toSink: number[] = [];
    /** [seconds from the first request, request to sink in ms] of each arrived message. */
    const timeline: [number, number][] = [];
    let missing = 0;
    for (const n of this.answeredAt.keys()) {
      const at = arrivals.get(`tx-${n}@example.com`);
      if (at === undefined) missing++;
      else {
        toSink.push(at - this.sentAt[n]);
        timeline.push([(this.sentAt[n] - this.sentAt[0]) / 1000, at - this.sentAt[n]]);
      }
    }
    // Whether the tail is spread over the run or is one moment (a cold start, say).
    const slowest = timeline.sort((a, b) => b[1] - a[1]).slice(0, Math.ceil(timeline.length / 100));
    const sentWhen = slowest.map(([second]) => second);
    const toAnswer = [...this.answeredAt].map(([n, at]) => at - this.sentAt[n]);
    const reasons = new Map<string, number>();
    for (const reason of this.refused) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    return (
      `${this.issued} requests at ${this.rate}/s, ${this.answeredAt.size} answered 202` +
      (reasons.size > 0
        ? ` (others: ${[...reasons].map(([reason, n]) => `${n} × ${reason}`).join(', ')})`
        : '') +
      `, ${toSink.length} arrived at the sink, ${missing} never arrived\n` +
      `    request → sink: p50 ${percentile(toSink, 0.5)} ms, p99 ${percentile(toSink, 0.99)} ms, ` +
      `max ${percentile(toSink, 1)} ms; request → 202: p50 ${percentile(toAnswer, 0.5)} ms, ` +
      `p99 ${percentile(toAnswer, 0.99)} ms` +
      (sentWhen.length > 0
        ? `\n    the slowest 1 % were sent ${Math.min(...sentWhen).toFixed(1)}–` +
          `${Math.max(...sentWhen).toFixed(1)} s after the first request`
        : '')
    );
  }
}

/** Why a request got no answer: the timeout, or the connection's own error code. */
function failure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `no answer within ${ANSWER_TIMEOUT_MS / 1000} s`;
  const cause = (error as Error & { cause?: { code?: string } }).cause;
  return cause?.code ?? error.message;
}

/** Nearest-rank percentile; '-' of nothing. */
function percentile(values: number[], p: number): string {
  if (values.length === 0) return '-';
  const sorted = [...values].sort((a, b) => a - b);
  return String(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]);
}

/** Waits until every accepted transactional message is at the sink, or arrivals stop. */
async function awaitArrivals(sink: Sink, expected: number): Promise<Map<string, number>> {
  let seen = -1;
  let movedAt = Date.now();
  for (;;) {
    const arrivals = await sink.arrivals();
    if (arrivals.size >= expected) return arrivals;
    if (arrivals.size !== seen) {
      seen = arrivals.size;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt >= STALL_MS) return arrivals;
    await sleep(200);
  }
}

export async function runSequence(bench: BenchHarness): Promise<void> {
  const env = bench.env;
  console.log('building…');
  await bench.build();
  console.log(`database ${bench.database}: migrating…`);
  await bench.migrate();
  const sink = await Sink.start(bench);
  const { server, base } = await startApi(bench);
  const rig = { sink, base, apiPid: server.child.pid, databaseUrl: env.DATABASE_URL };
  const account: BenchAccount = await createAccount(bench, 'Bench sequence');
  await assertVerified(base, account);
  console.log(`${SUBSCRIBERS} subscribers: seeding…`);
  await seed(env.DATABASE_URL, account.id, SUBSCRIBERS);

  const steps: Step[] = [];
  let running: Started[] = [];
  let runningShape: Shape | undefined;
  const stopWorkers = async () => {
    await Promise.all(running.map(({ child }) => bench.stop(child)));
    running = [];
    runningShape = undefined;
  };
  const startShape = async (shape: Shape): Promise<Started[]> => {
    const url = sink.url(POOL);
    if (!shape.transactionalWorker) return startWorkers(bench, shape.workers, url, { WORKER_NICE });
    const campaignEnv = { WORKER_NICE, WORKER_ROLES: '-transactional' };
    const transactionalEnv = { WORKER_NICE: '0', WORKER_ROLES: 'transactional' };
    return [
      ...(await startWorkers(bench, shape.workers, url, campaignEnv)),
      ...(await startWorkers(bench, 1, url, transactionalEnv)),
    ];
  };
  const campaign = async (label: string, shape: Shape, load?: TransactionalLoad) => {
    const step: Step = { label, workers: shape.workers };
    steps.push(step);
    const same =
      runningShape?.workers === shape.workers &&
      !!runningShape.transactionalWorker === !!shape.transactionalWorker;
    if (!same) {
      await stopWorkers();
      running = await startShape(shape);
      runningShape = shape;
    }
    const id = await createCampaign(base, account.key, label);
    console.log(
      `\n${label}: ${shape.workers} worker process(es) at nice ${WORKER_NICE}` +
        (shape.transactionalWorker ? ' + 1 transactional worker at nice 0' : '') +
        ` × ${POOL} SMTP connections…`,
    );
    try {
      step.send = await sendCampaign(rig, account, id, SUBSCRIBERS, running, {
        stallMs: STALL_MS,
        alongside: load && (() => load.start()),
      });
    } catch (error) {
      if (error instanceof Stalled)
        step.note = `stalled at ${error.delivered} of ${error.expected}`;
      throw error;
    } finally {
      if (load) await load.stop();
    }
    step.peaks = running.map(({ child }) => peakRssMiB(child.pid));
    console.log(`  ${describeSend(step.send, SUBSCRIBERS, step.peaks)}`);
    return id;
  };

  const baselines = new Map<number, BaselineResult>();
  const planned = [
    '(a) campaign, 1 worker',
    '(b) raw baseline',
    '(c) second campaign, 2 new workers',
    '(d) third campaign + transactional',
    '(e) as (d), own transactional worker',
  ];
  let done = 0;
  try {
    const first = await campaign(planned[0], { workers: 1 });
    await stopWorkers();
    done++;
    for (const processes of [1, 2]) {
      const step: Step = { label: `${planned[1]}, ${processes} process(es)`, workers: processes };
      steps.push(step);
      console.log(`\n${step.label}…`);
      step.baseline = await runBaseline(bench, sink, account, first, SUBSCRIBERS, processes, POOL);
      baselines.set(processes, step.baseline);
      console.log(`  ${describeBaseline(step.baseline, SUBSCRIBERS)}`);
    }
    done++;
    await campaign(planned[2], { workers: 2 });
    done++;
    for (const shape of [{ workers: 2 }, { workers: 2, transactionalWorker: true }]) {
      const load = new TransactionalLoad(base, account.key, TX_RATE);
      await campaign(planned[done], shape, load);
      const arrivals = await awaitArrivals(sink, load.accepted.length);
      steps[steps.length - 1].note = load.report(arrivals);
      console.log(`  transactional: ${steps[steps.length - 1].note}`);
      done++;
    }
  } catch (error) {
    if (!(error instanceof Stalled)) throw error;
    console.log(`\n${error.message}`);
    await stopWorkers();
    const cancelled = await cancelActiveStatements(env.DATABASE_URL);
    console.log(`stopped the workers, cancelled ${cancelled} statement(s) still running`);
    process.exitCode = 1;
  } finally {
    await stopWorkers();
  }

  console.log(
    `\nsequence on one database, ${SUBSCRIBERS} subscribers, ${POOL} SMTP connections per process, ` +
      `workers at nice ${WORKER_NICE}; ` +
      'ratio: against the baseline with as many processes as the campaign has campaign workers, measured in this run',
  );
  console.log(
    'step                                         msg/s  ratio first(ms) RSS(MiB)   dup  lost  bytes/msg  dkim',
  );
  for (const step of steps) {
    const baseline = baselines.get(step.workers);
    const result = step.send ?? step.baseline;
    const cells = step.send
      ? [
          step.send.messagesPerSec.toFixed(0).padStart(6),
          (baseline
            ? (step.send.messagesPerSec / baseline.messagesPerSec).toFixed(2)
            : '-'
          ).padStart(6),
          String(step.send.firstMessageMs).padStart(9),
          (step.peaks ?? [])
            .map((m) => m.toFixed(0))
            .join('+')
            .padStart(8),
          String(step.send.duplicates).padStart(5),
          String(step.send.lost).padStart(5),
        ]
      : step.baseline
        ? [
            step.baseline.messagesPerSec.toFixed(0).padStart(6),
            '1.00'.padStart(6),
            '-'.padStart(9),
            '-'.padStart(8),
            '-'.padStart(5),
            '-'.padStart(5),
          ]
        : [];
    console.log(
      [
        step.label.padEnd(43),
        ...cells,
        result ? result.bytesPerMessage.toFixed(0).padStart(10) : '',
        result ? `${result.signed}/${SUBSCRIBERS} ${result.dkim}` : '',
        step.note && !step.send ? step.note : '',
      ]
        .filter((cell) => cell !== '')
        .join(' '),
    );
  }
  for (const step of steps) {
    if (step.send && step.note)
      console.log(`${step.label.slice(0, 3)} transactional: ${step.note}`);
  }
  for (const label of planned.slice(done + (done < planned.length ? 1 : 0))) {
    console.log(`${label.padEnd(43)} not run`);
  }
  console.log(
    'targets: each campaign ratio ≥ 0.90, first < 200 ms, RSS < 150 MiB, 0 duplicates, 0 lost; ' +
      'transactional p99 request → sink < 250 ms',
  );
}
