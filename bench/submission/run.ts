// `npm run bench:submission`: messages per second that Herald takes over SMTP submission (8
// connections, STARTTLS and AUTH once each, then one message after another on each) against
// the same messages through `POST /v1/transactional/send` (8 concurrent clients on kept-alive
// connections), in the same run, from the same API process. Each message is a receipt to one
// recipient with a text and an HTML part, from a verified sender domain; taken means stored in
// the message log and queued (250 `queued as <id>` on SMTP, 202 on the API). No worker runs,
// so sending does not compete with taking. Prints every run, each contender's median and the
// ratio SMTP/API (target ≥ 0.8).
//
// Steps: build → throwaway database → migrate → account, key (transactional:send) and
// verified domain → the API process (as `npm run start:api` runs it, with
// SUBMISSION_SMTP_PORT) → a warm-up of each → BENCH_ROUNDS × (SMTP, API) in ABBA order → table
// → clean up (processes, database, Redis keys; also on failure and Ctrl-C).
//
// Env (optional): BENCH_MESSAGES (2000) per run, BENCH_ROUNDS (2), BENCH_CONNECTIONS (8),
// BENCH_BUILD (1; 0: use dist/ as it is),
// BENCH_NODE_ARGS (none; e.g. `--cpu-prof --cpu-prof-dir=var/prof`), PG_SERVER, REDIS_URL.

import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { newId } from '../../src/platform/crypto/ids';
import { CpuMeter, CpuUse, pidsNamed } from '../support/cpu-meter';
import { BenchHarness, freePort, scriptCommand, sleep } from '../support/harness';
import { withClient } from '../support/stores';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const TARGET = 0.8;
const WARMUP = 200;

const FROM = 'Shop <orders@shop.bench>';
const SUBJECT = 'Your order has shipped';
const TEXT = `Hello,\n\n${'Your parcel is on its way and should arrive within three working days. '.repeat(12)}\n\nThe Shop`;
const HTML = `<html><body><h1>Your order has shipped</h1>${'<p>Your parcel is on its way and should arrive within three working days.</p>'.repeat(24)}</body></html>`;

const bench = new BenchHarness(
  {
    LOG_LEVEL: 'warn',
    // The limiter still runs on both paths (one Redis round trip per message); only its
    // ceilings are raised so that neither contender is ever throttled.
    RATE_LIMIT: '1000000',
    RATE_LIMIT_SEND: '1000000',
  },
  180_000,
);

interface Run {
  contender: 'smtp' | 'api';
  perSecond: number;
  cpu: CpuUse;
}

/** N messages over a pool of CONNECTIONS SMTP sessions; each must be answered 250. */
async function overSmtp(port: number, key: string, recipients: string[]): Promise<number> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: 'bench', pass: key },
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
  } as SMTPTransport.Options);
  const started = process.hrtime.bigint();
  try {
    await Promise.all(
      recipients.map(async (to) => {
        const info = await transport.sendMail({
          from: FROM,
          to,
          subject: SUBJECT,
          text: TEXT,
          html: HTML,
        });
        if (!info.response.startsWith('250')) throw new Error(`SMTP: ${info.response}`);
      }),
    );
  } finally {
    transport.close();
  }
  return seconds(started);
}

/** N messages by CONNECTIONS clients, each posting one after another; each must be a 202. */
async function overApi(base: string, key: string, recipients: string[]): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < recipients.length) {
        const to = recipients[next++];
        const response = await fetch(`${base}/v1/transactional/send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ from: FROM, to, subject: SUBJECT, text: TEXT, html: HTML }),
        });
        const body = await response.text();
        if (response.status !== 202) throw new Error(`API: ${response.status} ${body}`);
      }
    }),
  );
  return seconds(started);
}

function seconds(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function waitForHealth(base: string, output: string[]): Promise<void> {
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(250)) {
    const status = await fetch(`${base}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
  }
  throw new Error(`the API did not become healthy:\n${output.join('')}`);
}

bench.main(async () => {
  if (process.env.BENCH_BUILD !== '0') {
    console.log('building…');
    await bench.build();
  }
  await bench.migrate();
  const account = await bench.cli('accounts', 'create', '--name', 'Bench');
  const { key } = await bench.cli(
    'keys',
    'create',
    '--account',
    account.id,
    '--name',
    'bench',
    '--scopes',
    'transactional:send',
  );
  await withClient(bench.env.DATABASE_URL, (db) =>
    db.query(
      `INSERT INTO sender_domains (id, account_id, name, status, verified_at)
       VALUES ($1, $2, 'shop.bench', 'verified', now())`,
      [newId(), account.id],
    ),
  );

  const [httpPort, smtpPort] = [await freePort(), await freePort()];
  const { env, args } = scriptCommand('start:api', 'dist/main.js');
  const api = bench.start([...args, 'dist/main.js', '--api-only'], {
    ...env,
    PORT: String(httpPort),
    SUBMISSION_SMTP_PORT: String(smtpPort),
    SUBMISSION_SMTP_HOST: '127.0.0.1',
  });
  const base = `http://127.0.0.1:${httpPort}`;
  await waitForHealth(base, api.output);

  let batch = 0;
  const recipients = (count: number) => {
    batch++;
    return Array.from({ length: count }, (_, n) => `buyer${n}.${batch}@customers.bench`);
  };
  // CPU per message says where the cost is on a machine busy with other work, where the
  // rates alone move with everyone else's load.
  const meter = new CpuMeter({
    herald: () => [api.child.pid],
    client: () => [process.pid],
    postgres: () => pidsNamed('postgres'),
  });
  const once = async (contender: Run['contender'], count: number): Promise<Run> => {
    const to = recipients(count);
    const before = meter.snapshot();
    const took =
      contender === 'smtp' ? await overSmtp(smtpPort, key, to) : await overApi(base, key, to);
    return { contender, perSecond: count / took, cpu: CpuMeter.between(before, meter.snapshot()) };
  };

  console.log(`warming up (${WARMUP} messages each)…`);
  await once('smtp', WARMUP);
  await once('api', WARMUP);

  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: Run['contender'][] = round % 2 === 0 ? ['smtp', 'api'] : ['api', 'smtp'];
    for (const contender of order) {
      const run = await once(contender, MESSAGES);
      runs.push(run);
      console.log(
        `  round ${round + 1} ${contender.padEnd(4)} ${run.perSecond.toFixed(0)} msg/s · ` +
          CpuMeter.describe(run.cpu, MESSAGES),
      );
    }
  }
  const taken = await withClient(bench.env.DATABASE_URL, (db) =>
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM transactional_messages'),
  );
  const expected = 2 * WARMUP + runs.length * MESSAGES;
  if (taken.rows[0].n !== expected) {
    throw new Error(`message log holds ${taken.rows[0].n} messages, ${expected} were taken`);
  }

  const smtp = median(runs.filter((run) => run.contender === 'smtp').map((run) => run.perSecond));
  const http = median(runs.filter((run) => run.contender === 'api').map((run) => run.perSecond));
  const ratio = smtp / http;
  console.log(
    `\n${MESSAGES} messages per run, ${CONNECTIONS} connections, ${ROUNDS} rounds (medians)\n` +
      `  SMTP submission            ${smtp.toFixed(0)} msg/s\n` +
      `  POST /v1/transactional/send ${http.toFixed(0)} msg/s\n` +
      `  ratio SMTP/API             ${ratio.toFixed(2)} (target ≥ ${TARGET}) ${ratio >= TARGET ? 'ok' : 'BELOW TARGET'}`,
  );
});
