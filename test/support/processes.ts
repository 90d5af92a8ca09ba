import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { TestEnv } from './test-env';
import { waitFor } from './wait-for';

const runFile = promisify(execFile);
export const ROOT = resolve(__dirname, '../..');

/** The environment a Herald process of this TestEnv runs with. */
export function processEnv(env: TestEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    DATABASE_URL: env.config.databaseUrl,
    DATABASE_DIRECT_URL: env.config.database.directUrl,
    DATABASE_POOLER: env.config.database.pooler,
    REDIS_URL: env.config.redisUrl,
    ...(env.config.redis?.kind === 'cluster'
      ? {
          REDIS_CLUSTER_NODES: env.config.redis.nodes
            .map(({ host, port }) => `${host}:${port}`)
            .join(','),
        }
      : {}),
    QUEUE_PREFIX: env.config.queuePrefix,
    HERALD_SECRET: env.config.secret,
    OUTBOX_DIR: env.config.outboxDir,
    SIGNUP: env.config.signup,
    RATE_LIMIT_ANONYMOUS: String(env.config.rateLimits.anonymous),
    RATE_LIMIT_MAIL_AGENTS: String(env.config.rateLimits.mailAgents),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * Runs the operator CLI (compiled by `npm run build`, which `npm test` runs first) with
 * `stdin` as its standard input (empty unless given, e.g. for `--password-stdin`).
 */
export async function cli(
  env: TestEnv,
  args: string[],
  stdin = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const running = runFile('node', ['dist/cli/cli.js', ...args], {
      cwd: ROOT,
      env: processEnv(env),
    });
    running.child.stdin?.end(stdin);
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Polls a URL until it answers 200 or the deadline passes. The default bound is generous: a
 * server boots in a second or two, but far slower on a machine shared with other work.
 */
export async function waitForOk(url: string, timeoutMs = 45_000): Promise<void> {
  await waitFor(
    () =>
      fetch(url).then(
        (response) => response.ok,
        () => false,
      ),
    { timeoutMs, intervalMs: 200, message: `${url} did not answer 200` },
  );
}

export function startNode(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('node', [script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const exited = once(child, 'exit');
  // A deadline for a graceful exit, not a pause: SIGKILL only if SIGTERM was not enough.
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Process ids whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

/** Whether a process of this id still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
