import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { processEnv, ROOT } from '../support/processes';
import { Tenant } from '../support/factories';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const ROWS = 100_000;
const MEMORY_BOUND_MIB = 200;

/**
 * A 100,000-row CSV (bad rows, duplicates, erased emails, existing subscribers, extra columns)
 * imported by a separate worker process that is killed with SIGKILL midway and started again:
 * the counts come out exactly as the file says, nobody is written twice, and the worker's
 * peak memory stays under 200 MiB. The workers run as `npm run start:worker` runs them.
 */
describe('a 100,000-row import across a worker crash', () => {
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;
  const workers: ChildProcess[] = [];
  const logs: string[] = [];

  const startWorker = () => {
    const command = workerCommand();
    const child = spawn(process.execPath, command.args, {
      cwd: ROOT,
      env: { ...processEnv(env, { LOG_LEVEL: 'info' }), ...command.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    workers.push(child);
    return child;
  };

  beforeAll(async () => {
    env = await TestEnv.create({ RATE_LIMIT: '10000' });
    api = await TestApi.start(env, { workers: false });
    tenant = await api.tenant('Bulk crash');
  });
  afterAll(async () => {
    for (const worker of workers) {
      if (worker.exitCode === null && worker.signalCode === null) {
        worker.kill('SIGKILL');
        await once(worker, 'exit');
      }
    }
    await api?.close();
    await env?.dispose();
  });

  it('imports every row exactly once and stays under the memory bound', async () => {
    const post = (path: string) => request(api.server).post(path).set('Authorization', tenant.auth);
    const file = makeCsv(ROWS);
    // Subscribers the file updates, and identities it must not bring back.
    for (let start = 0; start < file.existing.length; start += 1000) {
      const subscribers = file.existing
        .slice(start, start + 1000)
        .map((email) => ({ email, first_name: 'Before' }));
      await post('/v1/subscribers/batch').send({ subscribers }).expect(200);
    }
    for (const email of file.erased) {
      await post('/v1/subscribers').send({ email }).expect(201);
      await post('/v1/erasures').send({ email }).expect(200);
    }

    const first = startWorker();
    await waitFor(() => logs.join('').includes('ImportWorkersModule dependencies initialized'), {
      timeoutMs: 45_000,
      message: () => `the worker did not start\n${logs.join('')}`,
    });
    const idle = await waitFor(() => memoryOf(first), { timeoutMs: 5_000 });

    const accepted = await post('/v1/imports')
      .attach('file', Buffer.from(file.csv), { filename: 'big.csv', contentType: 'text/csv' })
      .expect(202);
    const id = accepted.body.id as string;
    const progress = async () => {
      const { body } = (await request(api.server)
        .get(`/v1/imports/${id}`)
        .set('Authorization', tenant.auth)
        .expect(200)) as { body: ImportProgress };
      return body;
    };

    // Killed once a good part of the file is in, well before the end.
    const before = await waitFor(
      async () => {
        const seen = await progress();
        return seen.rows_processed >= ROWS * 0.3 ? seen : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 100, message: () => logs.join('').slice(-3000) },
    );
    const firstPeak = memoryOf(first)!.peakMiB;
    first.kill('SIGKILL');
    await once(first, 'exit');
    const atDeath = await progress();
    expect(atDeath.status).toBe('running');
    expect(atDeath.rows_processed).toBeLessThan(ROWS);

    const second = startWorker();
    const done = await waitFor(
      async () => {
        const seen = await progress();
        return seen.status === 'done' || seen.status === 'failed' ? seen : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 250, message: () => logs.join('').slice(-3000) },
    );
    const secondPeak = memoryOf(second)!.peakMiB;
    console.log(
      `import of ${ROWS} rows: worker idle RSS ${idle.rssMiB.toFixed(0)} MiB; ` +
        `peak RSS ${firstPeak.toFixed(0)} MiB (first worker, killed at row ${before.rows_processed}), ` +
        `${secondPeak.toFixed(0)} MiB (second worker, resumed from row ${atDeath.rows_processed})`,
    );

    expect(done).toMatchObject({
      status: 'done',
      rows_total: ROWS,
      rows_processed: ROWS,
      ...file.expected,
    });
    expect(done.errors).toHaveLength(Math.min(1000, file.expected.failed));
    const [{ count }] = await env.sql<{ count: number }>(
      `SELECT count(*)::int AS count FROM subscribers`,
    );
    expect(count).toBe(file.existing.length + file.expected.created);
    // The last writer of a duplicated email wins, as if the rows had been applied in order.
    const [duplicate] = await env.sql<{ first_name: string; custom_fields: object }>(
      `SELECT first_name, custom_fields FROM subscribers WHERE email = $1`,
      [file.duplicated.email],
    );
    expect(duplicate).toEqual({
      first_name: file.duplicated.firstName,
      custom_fields: expect.objectContaining({
        plan: expect.any(String),
        score: expect.any(Number),
      }),
    });
    const [{ erased }] = await env.sql<{ erased: number }>(
      `SELECT count(*)::int AS erased FROM subscribers WHERE email = ANY($1)`,
      [file.erased],
    );
    expect(erased).toBe(0);
    expect(Math.max(firstPeak, secondPeak)).toBeLessThan(MEMORY_BOUND_MIB);
  }, 600_000);
});

interface ImportProgress {
  status: string;
  rows_total: number | null;
  rows_processed: number;
  errors: unknown[];
}

/**
 * `NAME=value… node <flags> dist/worker.js` exactly as `npm run start:worker` runs it: the
 * leading settings (the C library's allocator is tuned there) and Node's arguments.
 */
function workerCommand(): { env: Record<string, string>; args: string[] } {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const words = scripts['start:worker'].trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0) throw new Error(`start:worker does not run node: ${scripts['start:worker']}`);
  const settings = words.slice(0, node).map((word) => word.split('=', 2) as [string, string]);
  return { env: Object.fromEntries(settings), args: words.slice(node + 1) };
}

/** Resident and peak resident memory of a process (Linux /proc), in MiB. */
function memoryOf(child: ChildProcess): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]);
    return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * The file, and what importing it must give, worked out row by row as the import would:
 * every 997th row has a bad email, every 1,009th one cell too many, every 499th repeats the
 * email of the row 200 before it with another first name (an update), 1,000 rows are
 * subscribers that exist already (updated), 50 are erased identities (skipped). Three columns
 * are not subscriber fields and become custom fields.
 */
function makeCsv(rows: number) {
  const lines = ['email,first_name,last_name,city,tags,plan,signup_source,score'];
  const expected = { created: 0, updated: 0, unchanged: 0, skipped_erased: 0, failed: 0 };
  const existing = new Set<string>();
  const erased = new Set<string>();
  const seen = new Set<string>();
  let duplicated = { email: '', firstName: '' };
  const emailOf = (row: number) => `person${row}@bulk.test`;
  for (let row = 1; row <= rows; row++) {
    let email = emailOf(row);
    let firstName = `First${row}`;
    if (row % 997 === 0) {
      lines.push(`not-an-email-${row},${firstName},Last,Oslo,news,gold,ads,${row}`);
      expected.failed++;
      continue;
    }
    if (row % 1009 === 0) {
      lines.push(`${email},${firstName},Last,Oslo,news,gold,ads,${row},surplus`);
      expected.failed++;
      continue;
    }
    if (row % 499 === 0 && row > 200 && (row - 200) % 997 !== 0 && (row - 200) % 1009 !== 0) {
      email = emailOf(row - 200);
      firstName = `Again${row}`;
      duplicated = { email, firstName };
    } else if (row % 2000 === 1) {
      erased.add(email);
    } else if (row % 100 === 50) {
      existing.add(email);
    }
    lines.push(
      `${email},${firstName},Last${row % 7},City ${row % 13},"news, offers",gold,ads,${row}`,
    );
    if (erased.has(email)) expected.skipped_erased++;
    else if (seen.has(email) || existing.has(email)) expected.updated++;
    else expected.created++;
    seen.add(email);
  }
  return {
    csv: `${lines.join('\n')}\n`,
    expected,
    existing: [...existing],
    erased: [...erased],
    duplicated,
  };
}
