// What both modes of `npm run bench:campaign-send` are made of: the sink process and its
// counts, the API process, worker processes (started as `npm run start:worker` starts them,
// ready once each has logged that it takes jobs), an account with a verified, DKIM-signing
// sender domain and N subscribers, a campaign sent and followed to its end (or to a stall),
// and the raw baseline (raw-blast.ts) in as many processes as Herald has workers.

import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { newId } from '../../src/platform/crypto/ids';
import { CpuMeter, CpuUse, pidsNamed, processCpuMs } from '../support/cpu-meter';
import { BenchHarness, freePort, ROOT, sleep, Started, workerCommand } from '../support/harness';
import { withClient } from '../support/stores';
import { addVerifiedDomain, dkimResult, VerifiedDomain } from './verified-domain';

/** The sender domain of every bench message; the rig stores it as verified. */
export const SENDER_DOMAIN = 'acme.example';
const POLL_MS = 100;

/** Peak resident set size of a process in MiB (Linux /proc VmHWM). */
export function peakRssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

// ---- the sink ------------------------------------------------------------------------------

export interface SinkStats {
  /** Campaign messages since the last reset (transactional ones are counted apart). */
  count: number;
  firstAt: number;
  lastAt: number;
  bytes: number;
  /** Messages that began with a DKIM-Signature header. */
  signed: number;
  /** Distinct campaign recipients reached. */
  distinct: number;
  transactional: number;
}

export class Sink {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SMTP_URL for a sender with `connections` SMTP connections (per process). */
  url(connections: number): string {
    return `smtp://127.0.0.1:${this.port}?maxConnections=${connections}`;
  }

  static async start(bench: BenchHarness): Promise<Sink> {
    const child = fork(resolve(__dirname, 'sink.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', '@swc-node/register'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    bench.adopt(child);
    const [message] = (await once(child, 'message')) as [{ port: number }];
    return new Sink(child, message.port);
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

  /** The first campaign message since the reset, whole. */
  async sample(): Promise<Buffer | undefined> {
    const { message } = await this.ask<{ message?: string }>('sample', 'sample');
    return message === undefined ? undefined : Buffer.from(message, 'base64');
  }

  /** When each transactional recipient's message arrived. */
  async arrivals(): Promise<Map<string, number>> {
    const { arrivals } = await this.ask<{ arrivals: [string, number][] }>('arrivals', 'arrivals');
    return new Map(arrivals);
  }
}

// ---- stalls ---------------------------------------------------------------------------------

/** A send that made no progress at the sink for `idleMs`. */
export class Stalled extends Error {
  constructor(
    readonly what: string,
    readonly delivered: number,
    readonly expected: number,
    readonly idleMs: number,
    readonly activity: string[],
  ) {
    super(
      `${what} stalled: ${delivered} of ${expected} at the sink, none for ${(idleMs / 1000).toFixed(0)} s` +
        (activity.length > 0
          ? `\n  PostgreSQL statements active on the bench database then:\n    ${activity.join('\n    ')}`
          : ''),
    );
  }
}

/** The bench database's active statements, longest first: what a stalled send is waiting on. */
export async function activeStatements(databaseUrl: string): Promise<string[]> {
  const { rows } = await withClient(databaseUrl, (db) =>
    db.query<{ seconds: string; wait: string | null; query: string }>(
      `SELECT round(extract(epoch FROM now() - query_start))::text AS seconds,
              wait_event_type AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
         FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
        ORDER BY query_start`,
    ),
  );
  return rows.map(
    (row) => `${row.seconds} s ${row.wait ? `(waiting: ${row.wait}) ` : ''}${row.query}`,
  );
}

/**
 * Cancels every statement still running on the bench database (but this one): a stalled send
 * leaves statements that outlive the workers that sent them.
 */
export async function cancelActiveStatements(databaseUrl: string): Promise<number> {
  const { rows } = await withClient(databaseUrl, (db) =>
    db.query(
      `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
    ),
  );
  return rows.length;
}

/**
 * Waits until the sink has `expected` campaign messages. Fails with Stalled when the count has
 * not moved for `stallMs` (progress, not a total time, decides: a slow machine is not a
 * stall), and in any case after `limitMs`.
 */
export async function waitForSink(
  sink: Sink,
  expected: number,
  options: { what: string; stallMs: number; limitMs: number; databaseUrl: string },
): Promise<SinkStats> {
  const deadline = Date.now() + options.limitMs;
  let seen = -1;
  let movedAt = Date.now();
  for (;;) {
    const stats = await sink.stats();
    if (stats.count >= expected) return stats;
    const now = Date.now();
    if (stats.count !== seen) {
      seen = stats.count;
      movedAt = now;
    }
    if (now - movedAt >= options.stallMs || now > deadline) {
      const activity = await activeStatements(options.databaseUrl);
      throw new Stalled(options.what, stats.count, expected, now - movedAt, activity);
    }
    await sleep(POLL_MS);
  }
}

// ---- the API and the workers ----------------------------------------------------------------

export async function api(base: string, key: string, method: string, path: string, body?: unknown) {
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

export async function startApi(bench: BenchHarness): Promise<{ server: Started; base: string }> {
  const port = await freePort();
  // BENCH_API_NODE_ARGS: Node flags for the API alone (e.g. `--cpu-prof --cpu-prof-dir=DIR`).
  const flags = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = bench.start([...flags, 'dist/main.js', '--api-only'], { PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
    const ok = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { server, base };
    if (server.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`API did not start:\n${server.output.join('')}`);
    }
  }
}

/**
 * `count` new worker processes sending to `smtpUrl` (with `extraEnv` besides), each ready: it
 * has logged that it takes jobs, which it does once Nest has built it, its warm-ups have ended
 * and its BullMQ workers run, so the first job is taken at once.
 */
export async function startWorkers(
  bench: BenchHarness,
  count: number,
  smtpUrl: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Started[]> {
  const command = workerCommand();
  const workers: Started[] = [];
  for (let i = 0; i < count; i++) {
    workers.push(
      bench.start([...command.args, 'dist/worker.js'], {
        ...command.env,
        LOG_LEVEL: 'info',
        ...extraEnv,
        SMTP_URL: smtpUrl,
      }),
    );
  }
  for (const deadline = Date.now() + 60_000; ; await sleep(POLL_MS)) {
    const dead = workers.find(({ child }) => child.exitCode !== null);
    if (dead || Date.now() > deadline) {
      throw new Error(`worker did not start:\n${(dead ?? workers[0]).output.join('')}`);
    }
    if (workers.every((worker) => worker.takingJobs())) return workers;
  }
}

// ---- the account ----------------------------------------------------------------------------

export interface BenchAccount {
  id: string;
  key: string;
  domain: VerifiedDomain;
}

export async function createAccount(
  bench: BenchHarness,
  name: string,
  scopes = 'campaigns:read,campaigns:write,campaigns:send,stats:read,webhooks:write,domains:read,transactional:send',
): Promise<BenchAccount> {
  const account = await bench.cli('accounts', 'create', '--name', name);
  const { key } = await bench.cli(
    'keys',
    'create',
    '--account',
    account.id,
    '--name',
    'bench',
    '--scopes',
    scopes,
  );
  const domain = await addVerifiedDomain(bench.env, account.id, SENDER_DOMAIN);
  return { id: account.id, key, domain };
}

/** Herald's own view of the bench's domain must be `verified`, or nothing is signed. */
export async function assertVerified(base: string, account: BenchAccount): Promise<void> {
  const domain = await api(base, account.key, 'GET', `/v1/domains/${account.domain.id}`);
  if (domain.status !== 'verified') {
    throw new Error(`the bench's sender domain is not verified: ${JSON.stringify(domain)}`);
  }
}

/** `count` subscribers subscriber<i>@example.com, with names and fields to merge. */
export async function seed(databaseUrl: string, accountId: string, count: number): Promise<void> {
  const start = Date.now() - count;
  for (let offset = 0; offset < count; offset += 20_000) {
    const ids = Array.from({ length: Math.min(20_000, count - offset) }, (_, i) =>
      newId(start + offset + i),
    );
    await withClient(databaseUrl, (db) =>
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
  await withClient(databaseUrl, (db) => db.query('ANALYZE subscribers'));
}

export async function createCampaign(base: string, key: string, name: string): Promise<string> {
  const campaign = await api(base, key, 'POST', '/v1/campaigns', {
    name,
    subject: 'News for {{first_name}}',
    from: `Acme News <news@${SENDER_DOMAIN}>`,
    text: 'Hello {{first_name}},\n\nThis month at Acme: things.\n\nUnsubscribe: {{unsubscribe_url}}',
    html: '<html><body><p>Hello {{first_name}},</p><p>This month at <a href="https://acme.example/news">Acme</a>: things.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>',
  });
  return campaign.id as string;
}

// ---- a campaign's send ----------------------------------------------------------------------

export interface SendResult {
  messagesPerSec: number;
  firstMessageMs: number;
  sentAfterMs: number;
  /** Worker CPU per message. */
  cpuMsPerMessage: number;
  duplicates: number;
  lost: number;
  bytesPerMessage: number;
  /** The first message's DKIM verdict ('pass') and how many messages were signed at all. */
  dkim: string;
  signed: number;
  cpu: CpuUse;
  /** Accepted at (the 202), and the sink's count then, for callers measuring alongside. */
  acceptedAt: number;
}

export interface SendOptions {
  stallMs: number;
  /** Runs once the 202 is in, until the send is over (e.g. a load alongside it). */
  alongside?: (acceptedAt: number) => void;
}

/** The processes whose CPU a run accounts for, beside the whole machine's. */
export function meterOf(sink: Sink, herald: Record<string, () => (number | undefined)[]> = {}) {
  return new CpuMeter({
    ...herald,
    sink: () => [sink.pid],
    postgres: () => pidsNamed('postgres'),
    redis: () => pidsNamed('redis-server'),
  });
}

/**
 * Sends a campaign (created already) with the given workers running and follows it to the
 * sink: rate (from the 202 to the last message), first message, duplicates and losses (each
 * recipient counted at the sink), and Herald's own stats at the end.
 */
export async function sendCampaign(
  rig: { sink: Sink; base: string; apiPid: number | undefined; databaseUrl: string },
  account: BenchAccount,
  campaignId: string,
  expected: number,
  workers: Started[],
  options: SendOptions,
): Promise<SendResult> {
  const { sink, base } = rig;
  await sink.reset();
  const cpuOf = () => workers.reduce((sum, { child }) => sum + (processCpuMs(child.pid) ?? 0), 0);
  const cpuBefore = cpuOf();
  const meter = meterOf(sink, {
    worker: () => workers.map(({ child }) => child.pid),
    api: () => [rig.apiPid],
  });
  const machineBefore = meter.snapshot();
  await api(base, account.key, 'POST', `/v1/campaigns/${campaignId}/send`);
  const acceptedAt = Date.now();
  options.alongside?.(acceptedAt);
  const stats = await waitForSink(sink, expected, {
    what: `campaign ${campaignId}`,
    stallMs: options.stallMs,
    // Bounded however slow the machine: a million at 50 msg/s still fits.
    limitMs: Math.max(300_000, expected * 20),
    databaseUrl: rig.databaseUrl,
  });
  const cpu = CpuMeter.between(machineBefore, meter.snapshot());
  for (const deadline = Date.now() + 60_000; ; await sleep(POLL_MS)) {
    const progress = await api(base, account.key, 'GET', `/v1/campaigns/${campaignId}/stats`);
    if (progress.status === 'sent') {
      if (progress.delivered !== expected) throw new Error(`stats: ${JSON.stringify(progress)}`);
      break;
    }
    if (Date.now() > deadline) throw new Error(`never sent: ${JSON.stringify(progress)}`);
  }
  const sentAfterMs = Date.now() - acceptedAt;
  const final = await sink.stats();
  const sample = await sink.sample();
  return {
    messagesPerSec: expected / ((stats.lastAt - acceptedAt) / 1000),
    firstMessageMs: stats.firstAt - acceptedAt,
    sentAfterMs,
    cpuMsPerMessage: (cpuOf() - cpuBefore) / expected,
    duplicates: final.count - final.distinct,
    lost: expected - final.distinct,
    bytesPerMessage: final.bytes / final.count,
    dkim: sample ? await dkimResult(sample, account.domain) : 'no message',
    signed: final.signed,
    cpu,
    acceptedAt,
  };
}

export function describeSend(result: SendResult, size: number, peaks: number[]): string {
  return (
    `${result.messagesPerSec.toFixed(0)} msg/s, first message ${result.firstMessageMs} ms after the 202, ` +
    `sent after ${(result.sentAfterMs / 1000).toFixed(1)} s, worker peak RSS ` +
    `${peaks.map((m) => m.toFixed(0)).join(' + ')} MiB, ${result.duplicates} duplicates, ` +
    `${result.lost} lost\n` +
    `    ${result.bytesPerMessage.toFixed(0)} bytes/msg, ${result.signed} of ${size} DKIM-signed ` +
    `(first: ${result.dkim}), ${result.cpuMsPerMessage.toFixed(2)} worker CPU ms/msg\n` +
    `    CPU: ${CpuMeter.describe(result.cpu, size)}`
  );
}

// ---- the raw baseline -----------------------------------------------------------------------

export interface BaselineResult {
  processes: number;
  connections: number;
  messagesPerSec: number;
  /** Sender CPU per message, all processes. */
  cpuMsPerMessage: number;
  bytesPerMessage: number;
  dkim: string;
  signed: number;
  cpu: CpuUse;
}

/**
 * `count` messages of the campaign through `processes` raw-blast.ts processes with
 * `connections` SMTP connections each (the i-th taking the i-th share of the subscribers).
 * Every process builds and signs its share first; the clock starts when all are ready and
 * stops at the last message at the sink.
 */
export async function runBaseline(
  bench: BenchHarness,
  sink: Sink,
  account: BenchAccount,
  campaignId: string,
  count: number,
  processes: number,
  connections: number,
): Promise<BaselineResult> {
  await sink.reset();
  const children: ChildProcess[] = [];
  const done: Promise<{ cpuMs: number }>[] = [];
  const ready: Promise<unknown>[] = [];
  const share = Math.ceil(count / processes);
  for (let i = 0; i < processes; i++) {
    const offset = i * share;
    const child = fork(resolve(__dirname, 'raw-blast.ts'), [], {
      cwd: ROOT,
      execArgv: ['--max-semi-space-size=32', '-r', '@swc-node/register'],
      env: {
        ...bench.env,
        SMTP_URL: sink.url(connections),
        CAMPAIGN_ID: campaignId,
        OFFSET: String(offset),
        COUNT: String(Math.min(share, count - offset)),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    bench.adopt(child);
    children.push(child);
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`raw-blast.ts exited (${String(code)}) before it was done`);
    });
    const answer = (type: string) =>
      Promise.race([
        new Promise<Record<string, number>>((resolve) =>
          child.on('message', (m: { type: string }) => m.type === type && resolve(m as never)),
        ),
        exited,
      ]);
    ready.push(answer('ready'));
    done.push(answer('done') as Promise<{ cpuMs: number }>);
  }
  try {
    await Promise.all(ready);
    const meter = meterOf(sink, { sender: () => children.map((child) => child.pid) });
    const before = meter.snapshot();
    const startedAt = Date.now();
    for (const child of children) child.send({ type: 'go' });
    const results = await Promise.all(done);
    const cpu = CpuMeter.between(before, meter.snapshot());
    const stats = await sink.stats();
    if (stats.count !== count) throw new Error(`raw: sink got ${stats.count} of ${count}`);
    const sample = await sink.sample();
    return {
      processes,
      connections,
      messagesPerSec: count / ((stats.lastAt - startedAt) / 1000),
      cpuMsPerMessage: results.reduce((sum, r) => sum + r.cpuMs, 0) / count,
      bytesPerMessage: stats.bytes / stats.count,
      dkim: sample ? await dkimResult(sample, account.domain) : 'no message',
      signed: stats.signed,
      cpu,
    };
  } finally {
    await Promise.all(children.map((child) => bench.stop(child)));
  }
}

export function describeBaseline(raw: BaselineResult, size: number): string {
  return (
    `${raw.messagesPerSec.toFixed(0)} msg/s (${raw.processes} process(es) × ${raw.connections} ` +
    `SMTP connections), ${raw.bytesPerMessage.toFixed(0)} bytes/msg, ${raw.signed} of ${size} ` +
    `DKIM-signed (first: ${raw.dkim}), ${raw.cpuMsPerMessage.toFixed(2)} sender CPU ms/msg\n` +
    `    CPU: ${CpuMeter.describe(raw.cpu, size)}`
  );
}
