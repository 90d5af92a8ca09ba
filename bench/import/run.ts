// `npm run bench:import`: one CSV of N subscribers imported through Herald (API --api-only +
// a separate worker process, both compiled, the worker as `npm run start:worker` runs it) and,
// in the same run, the same rows `COPY`-ed into a table shaped and indexed like `subscribers`:
// the practical limit of getting those rows into such a table. That table is made by
// `CREATE TABLE … (LIKE subscribers INCLUDING ALL)` (columns, defaults, checks, primary key,
// the unique (account_id, email_normalized) index and the others) plus subscribers' foreign
// keys, fresh and empty for each COPY; the CSV is turned into its columns before the clock
// starts (ids, normalised email, tags as an array, the other columns as custom_fields, as
// Herald stores them), so the COPY does only PostgreSQL's part of the work. Prints rows/s of
// both, their ratio (target ≥ 0.4), the CPU per row of the worker and of PostgreSQL (the
// backends of the bench's database, API and worker alike: on a loaded machine the CPU figures
// move far less than the wall-clock ones), and the worker's peak RSS (VmHWM; the bound is
// 200 MiB).
//
// Env (optional): BENCH_ROWS (100000), BENCH_NODE_ARGS (none, e.g. `--cpu-prof
// --cpu-prof-dir=var/prof`), PG_SERVER (postgresql://postgres@127.0.0.1:5432), REDIS_URL.
//
// Steps: build → throwaway database → migrate → account + key through the CLI → the CSV →
// COPY baseline → API and worker → import → COPY again (the better of the two is the
// baseline, so a busy moment does not flatter Herald) → table → clean up (also on failure and
// Ctrl-C).

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { newId } from '../../src/platform/crypto/ids';
import { processCpuMs } from '../support/cpu-meter';
import { BenchHarness, freePort, sleep, workerCommand } from '../support/harness';
import { withClient } from '../support/stores';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const HEADER = 'email,first_name,last_name,city,country_code,tags,plan,signup_source';

const bench = new BenchHarness({ LOG_LEVEL: 'warn', RATE_LIMIT: '1000000' }, 900_000);
const env = bench.env;

/** A realistic list: names, a city, two tags, two columns that become custom fields. */
function makeCsv(rows: number): string {
  const lines = [HEADER];
  for (let row = 1; row <= rows; row++) {
    lines.push(
      `reader${row}@bench.example,First${row},Last${row % 97},City ${row % 31},GB,"news, offers",` +
        `${row % 3 === 0 ? 'pro' : 'free'},campaign-${row % 11}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * CPU of the PostgreSQL backends serving the bench's database, sampled as the import runs (a
 * pool may close a backend before the end): per pid, the last value seen.
 */
class DatabaseCpu {
  private readonly start = new Map<number, number>();
  private readonly last = new Map<number, number>();

  async sample(first = false): Promise<void> {
    const pids = await withClient(env.DATABASE_URL, async (db) => {
      const { rows } = await db.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return rows.map((row) => row.pid);
    });
    for (const pid of pids) {
      const ms = processCpuMs(pid);
      if (ms === undefined) continue; // gone meanwhile
      if (first) this.start.set(pid, ms);
      this.last.set(pid, ms);
    }
  }

  spentMs(): number {
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - (this.start.get(pid) ?? 0);
    return total;
  }
}

function peakRssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function main(): Promise<void> {
  console.log('building…');
  await bench.build();
  console.log(`database ${bench.database}: migrating, creating the key…`);
  await bench.migrate();
  const account = await bench.cli('accounts', 'create', '--name', 'Bench import');
  const { key } = await bench.cli(
    'keys',
    'create',
    '--account',
    account.id,
    '--name',
    'bench',
    '--scopes',
    'subscribers:read,subscribers:write',
  );
  const csv = makeCsv(ROWS);
  console.log(`${ROWS} rows, ${(csv.length / 1024 / 1024).toFixed(1)} MiB of CSV`);

  const rows = asSubscriberRows(account.id);
  const copyBefore = await copyRowsPerSec(rows);
  console.log(
    `  COPY into a table like subscribers: ${copyBefore.perSec.toFixed(0)} rows/s, ` +
      `${copyBefore.cpuMs} ms of PostgreSQL CPU`,
  );

  const port = await freePort();
  const server = bench.start(['dist/main.js', '--api-only'], { PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
    const ok = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`API did not start:\n${server.output.join('')}`);
  }
  const { env: workerEnv, args: workerArgs } = workerCommand();
  const worker = bench.start([...workerArgs, 'dist/worker.js'], {
    ...workerEnv,
    LOG_LEVEL: 'info',
  });
  // Ready once it says it takes jobs: warm, and its BullMQ workers started.
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    if (worker.takingJobs()) break;
    if (worker.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`worker did not start:\n${worker.output.join('')}`);
    }
  }
  const idleRss = peakRssMiB(worker.child.pid);

  const cpuBefore = processCpuMs(worker.child.pid) ?? 0;
  const apiCpuBefore = processCpuMs(server.child.pid) ?? 0;
  const databaseCpu = new DatabaseCpu();
  await databaseCpu.sample(true);
  const started = Date.now();
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
  const accepted = await fetch(`${base}/v1/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const { id } = (await accepted.json()) as { id: string };
  if (accepted.status !== 202) throw new Error(`POST /v1/imports: ${accepted.status}`);
  const uploadedMs = Date.now() - started;
  const uploadApiCpu = (processCpuMs(server.child.pid) ?? 0) - apiCpuBefore;
  await databaseCpu.sample();
  const uploadPgCpu = databaseCpu.spentMs();
  let progress: Record<string, unknown>;
  for (const deadline = Date.now() + 900_000; ; await sleep(100)) {
    const response = await fetch(`${base}/v1/imports/${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    progress = (await response.json()) as Record<string, unknown>;
    await databaseCpu.sample();
    if (progress.status === 'done' || progress.status === 'failed') break;
    if (Date.now() > deadline) throw new Error(`never done: ${JSON.stringify(progress)}`);
  }
  const elapsedMs = Date.now() - started;
  if (progress.status !== 'done' || progress.created !== ROWS) {
    throw new Error(`import: ${JSON.stringify({ ...progress, errors: undefined })}`);
  }
  const workerCpu = (processCpuMs(worker.child.pid) ?? 0) - cpuBefore;
  const apiCpu = (processCpuMs(server.child.pid) ?? 0) - apiCpuBefore;
  await databaseCpu.sample();
  const pgCpu = databaseCpu.spentMs();
  console.log(`PostgreSQL CPU: ${uploadPgCpu} ms for the upload, ${pgCpu - uploadPgCpu} ms after`);
  console.log(
    `API CPU: ${uploadApiCpu} ms for the upload, ${apiCpu - uploadApiCpu} ms after (polling)`,
  );
  const peak = peakRssMiB(worker.child.pid);
  await bench.stop(worker.child);

  const copyAfter = await copyRowsPerSec(rows);
  console.log(
    `  COPY into a table like subscribers: ${copyAfter.perSec.toFixed(0)} rows/s, ` +
      `${copyAfter.cpuMs} ms of PostgreSQL CPU`,
  );
  const copy = Math.max(copyBefore.perSec, copyAfter.perSec);
  const copyCpu = Math.min(copyBefore.cpuMs, copyAfter.cpuMs);
  // CPU of the whole import (upload included: API, worker, PostgreSQL) against COPY's: the
  // measure that moves least with the load of other processes on the machine.
  const heraldCpu = uploadApiCpu + workerCpu + pgCpu;
  const herald = ROWS / (elapsedMs / 1000);
  console.log(
    `\n       N   COPY/s  herald/s  ratio  upload(ms)  CPU ms/row: worker  PostgreSQL  upload API  COPY  idle RSS  peak RSS(MiB)`,
  );
  console.log(
    [
      String(ROWS).padStart(8),
      copy.toFixed(0).padStart(8),
      herald.toFixed(0).padStart(9),
      (herald / copy).toFixed(2).padStart(6),
      String(uploadedMs).padStart(11),
      (workerCpu / ROWS).toFixed(3).padStart(26),
      (pgCpu / ROWS).toFixed(3).padStart(11),
      (uploadApiCpu / ROWS).toFixed(3).padStart(11),
      (copyCpu / ROWS).toFixed(3).padStart(5),
      idleRss.toFixed(0).padStart(9),
      peak.toFixed(0).padStart(14),
    ].join(' '),
  );
  console.log(
    `CPU: Herald ${heraldCpu} ms (API upload + worker + PostgreSQL), COPY ${copyCpu} ms: ` +
      `CPU ratio ${(copyCpu / heraldCpu).toFixed(2)}; load average ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
  );
  console.log(
    'COPY/s: the better of the two COPY runs into a table like subscribers, around the import\n' +
      'targets: ratio ≥ 0.40 (POST to done, against that COPY of the same rows), peak RSS < 200 MiB',
  );
}

/** The columns the baseline fills: those an import of this CSV sets on a subscriber. */
const COPY_COLUMNS =
  'id, account_id, email, email_normalized, first_name, last_name, city, country_code, tags, custom_fields';

/** A CSV field, quoted when it must be. */
const field = (value: string) =>
  /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

/**
 * The CSV's rows as subscribers' columns (COPY's csv format): what Herald stores for each, so
 * the baseline's PostgreSQL work is the same rows into the same shape. Made before the clock.
 */
function asSubscriberRows(accountId: string): string {
  const lines: string[] = [];
  const start = Date.now() - ROWS;
  for (let row = 1; row <= ROWS; row++) {
    const email = `reader${row}@bench.example`;
    const custom = JSON.stringify({
      plan: row % 3 === 0 ? 'pro' : 'free',
      signup_source: `campaign-${row % 11}`,
    });
    lines.push(
      [
        newId(start + row),
        accountId,
        email,
        email.trim().toLowerCase(),
        `First${row}`,
        `Last${row % 97}`,
        `City ${row % 31}`,
        'GB',
        '{news,offers}',
        custom,
      ]
        .map(field)
        .join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A fresh, empty table like subscribers: LIKE … INCLUDING ALL takes the columns, defaults,
 * constraints and indexes; foreign keys it leaves out, so they are added from subscribers' own.
 */
async function createCopyTable(db: Parameters<Parameters<typeof withClient>[1]>[0]) {
  await db.query('DROP TABLE IF EXISTS bench_copy');
  await db.query('CREATE TABLE bench_copy (LIKE subscribers INCLUDING ALL)');
  const { rows: foreignKeys } = await db.query<{ definition: string }>(
    `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = 'subscribers'::regclass AND contype = 'f'`,
  );
  for (const { definition } of foreignKeys) {
    await db.query(`ALTER TABLE bench_copy ADD ${definition}`);
  }
  const { rows: triggers } = await db.query<{ name: string }>(
    `SELECT tgname AS name FROM pg_trigger
      WHERE tgrelid = 'subscribers'::regclass AND NOT tgisinternal`,
  );
  if (triggers.length > 0) {
    console.log(
      `  note: subscribers has triggers the baseline table lacks: ${triggers.map((t) => t.name).join(', ')}`,
    );
  }
}

/**
 * COPY FROM STDIN of every row on one connection into a fresh table like subscribers: rows/s,
 * and the CPU its backend spent (the COPY and its commit).
 */
async function copyRowsPerSec(rows: string): Promise<{ perSec: number; cpuMs: number }> {
  return withClient(env.DATABASE_URL, async (db) => {
    await createCopyTable(db);
    const { rows: backend } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const cpuBefore = processCpuMs(backend[0].pid) ?? 0;
    const started = Date.now();
    await copyFromStdin(db, `COPY bench_copy (${COPY_COLUMNS}) FROM STDIN WITH (FORMAT csv)`, rows);
    const elapsedMs = Date.now() - started;
    const cpuMs = (processCpuMs(backend[0].pid) ?? 0) - cpuBefore;
    await db.query('DROP TABLE bench_copy');
    return { perSec: ROWS / (elapsedMs / 1000), cpuMs };
  });
}

/**
 * COPY … FROM STDIN through node-postgres without pg-copy-streams: a submittable that answers
 * the server's CopyInResponse with the data and CopyDone on the connection it is given.
 */
function copyFromStdin(
  db: Parameters<Parameters<typeof withClient>[1]>[0],
  text: string,
  data: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const submittable = {
      text,
      callback: undefined,
      submit(connection: {
        query(text: string): void;
        sendCopyFromChunk(chunk: Buffer): void;
        endCopyFrom(): void;
      }) {
        connection.query(text);
      },
      handleCopyInResponse(connection: {
        sendCopyFromChunk(c: Buffer): void;
        endCopyFrom(): void;
      }) {
        const bytes = Buffer.from(data);
        for (let at = 0; at < bytes.length; at += 64 * 1024) {
          connection.sendCopyFromChunk(bytes.subarray(at, at + 64 * 1024));
        }
        connection.endCopyFrom();
      },
      handleCommandComplete() {},
      handleReadyForQuery() {
        resolve();
      },
      handleError(error: Error) {
        reject(error);
      },
    };
    void db.query(submittable as never);
  });
}

bench.main(main);
