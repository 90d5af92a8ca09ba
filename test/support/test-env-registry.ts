import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { waitFor } from './wait-for';

/**
 * Every TestEnv a Jest run makes, written down as it is made, so that the run's end can check
 * that each test file left nothing behind. A file whose clean-up did not end its Herald
 * processes, drop its database or delete its Redis keys (a process of it still writing after
 * the drop, a clean-up that never ran) is named, and what it left is removed: the next run,
 * and the other users of the machine, find it as it was.
 */

/** Set by the run's global setup; its children (Jest's workers) inherit it. */
const RUN_VARIABLE = 'HERALD_TEST_RUN';
const ROOT = join(__dirname, '../..');
const DIRECTORY = join(ROOT, 'var/test-envs');

export interface RegisteredEnv {
  testPath: string;
  /** QUEUE_PREFIX of the env: every Herald process of it has it in its environment. */
  queuePrefix: string;
  /** Its database on the shared server; absent on a throwaway one, which goes with it. */
  database?: { server: string; name: string };
  /** Redis server and the pattern of this env's keys on it; absent when none is shared. */
  redis?: { server: string; pattern: string };
}

export function beginRun(id: string): void {
  process.env[RUN_VARIABLE] = id;
  mkdirSync(DIRECTORY, { recursive: true });
}

/** Writes one env down (one line, appended: Jest's workers write to the same file). */
export function registerEnv(env: Omit<RegisteredEnv, 'testPath'>): void {
  const run = process.env[RUN_VARIABLE];
  if (!run) return; // not under the Jest config (a script of its own)
  const { testPath } = expect.getState();
  const file = testPath ? relative(ROOT, testPath) : 'a test file';
  appendFileSync(runFile(run), `${JSON.stringify({ ...env, testPath: file })}\n`);
}

/** What this run's files left behind (processes, databases, keys), removed; a line per file. */
export async function removeLeftovers(): Promise<string[]> {
  const run = process.env[RUN_VARIABLE];
  if (!run) return [];
  let lines: string[];
  try {
    lines = readFileSync(runFile(run), 'utf8').split('\n').filter(Boolean);
  } catch {
    return []; // no TestEnv was made
  }
  const envs = lines.map((line) => JSON.parse(line) as RegisteredEnv);
  // Processes first, and gone: one still running would write again what is removed after it.
  const processes = await killProcessesOf(envs);
  const dropped = await dropPresent(envs);
  const reports: string[] = [];
  for (const env of envs) {
    const left = processes.get(env.queuePrefix) ?? [];
    const database = env.database && dropped.get(env.database.name);
    if (database) left.push(database);
    const keys = env.redis ? await deleteRedisKeys(env.redis.server, env.redis.pattern) : 0;
    if (keys > 0) left.push(`${keys} Redis key${keys === 1 ? '' : 's'} (${env.redis!.pattern})`);
    if (left.length) reports.push(`${env.testPath} left ${left.join(', ')} behind`);
  }
  rmSync(runFile(run), { force: true });
  return reports;
}

/**
 * SIGKILL to every process started with one of the envs' queue prefixes in its environment
 * (a Herald process of a test, or a child it forked), waited for until they are gone; answers
 * them by prefix.
 */
async function killProcessesOf(envs: RegisteredEnv[]): Promise<Map<string, string[]>> {
  const prefixes = new Set(envs.map((env) => env.queuePrefix));
  const killed = new Map<string, string[]>();
  const pids: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let environment: string[];
    let command: string;
    try {
      environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue; // ended meanwhile, or not ours to read
    }
    const prefix = environment
      .find((entry) => entry.startsWith('QUEUE_PREFIX='))
      ?.slice('QUEUE_PREFIX='.length);
    if (!prefix || !prefixes.has(prefix)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      continue; // ended meanwhile
    }
    pids.push(pid);
    killed.set(prefix, [...(killed.get(prefix) ?? []), `process ${pid} (${command})`]);
  }
  // Reported either way; one that outlives SIGKILL (a stuck kernel call) is not worth failing
  // a run whose tests are done.
  await waitFor(() => pids.every(ended)).catch(() => undefined);
  return killed;
}

/** No such process, or one that has ended and waits only to be reaped (a zombie). */
function ended(pid: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Deletes the keys matching `pattern` on a Redis server; answers how many there were. */
export async function deleteRedisKeys(server: string, pattern: string): Promise<number> {
  const redis = new Redis(server);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

function runFile(run: string): string {
  return join(DIRECTORY, `${run}.jsonl`);
}

/** Drops the envs' databases that still exist; answers what became of each, by name. */
async function dropPresent(envs: RegisteredEnv[]): Promise<Map<string, string>> {
  const dropped = new Map<string, string>();
  const databases = envs.flatMap((env) => (env.database ? [env.database] : []));
  for (const server of new Set(databases.map((database) => database.server))) {
    const names = databases.filter((database) => database.server === server).map((d) => d.name);
    const admin = new Client({ connectionString: `${server}/postgres` });
    await admin.connect();
    try {
      const present = await admin.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname = ANY($1)',
        [names],
      );
      for (const { datname } of present.rows) {
        // Reported either way; a drop that fails is said, not thrown (the run's tests are done).
        const failed = await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).then(
          () => undefined,
          (error: Error) => error.message,
        );
        dropped.set(
          datname,
          failed ? `database ${datname} (not dropped: ${failed})` : `database ${datname}`,
        );
      }
    } finally {
      await admin.end();
    }
  }
  return dropped;
}
