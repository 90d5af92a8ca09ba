// Process and database plumbing shared by the benchmarks: a throwaway database
// herald_bench_<random> with its own queue prefix and secret, the build / migrate / CLI steps,
// child processes (bounded one-shot runs and long-running servers), free loopback ports, and a
// clean-up (children, database, Redis keys) that runs once, on success, failure or Ctrl-C.

import { ChildProcess, execFile, spawn, StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { TAKING_JOBS } from '../../src/platform/queue/worker-warm-ups';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';
import { deleteRedisKeys, PG_SERVER, REDIS_URL, withClient } from './stores';

export const ROOT = resolve(__dirname, '../..');

export const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

export interface Started {
  child: ChildProcess;
  /** The last output lines (stdout and stderr), to show if it dies. */
  output: string[];
  /**
   * Whether it has logged (at info) that its queue workers take jobs: warm and started. A
   * worker process says so once; so does `npm start`, whose worker child shares its stdout.
   */
  takingJobs(): boolean;
}

/** A worker's log line saying it takes jobs, as pino writes it. */
const TAKING_JOBS_LINE = `"msg":"${TAKING_JOBS}"`;

export type BenchEnv = NodeJS.ProcessEnv & { DATABASE_URL: string; QUEUE_PREFIX: string };

export class BenchHarness {
  readonly database: string;
  readonly env: BenchEnv;
  private readonly children = new Set<ChildProcess>();
  private databaseCreated = false;
  private cleaning: Promise<void> | undefined;
  private interrupted = false;

  /**
   * @param extraEnv added to the children's environment (on top of the database, Redis, queue
   *   prefix and a random HERALD_SECRET: the CLI hashes keys with it and Herald checks them with it)
   * @param timeoutMs default bound of `run`
   */
  constructor(
    extraEnv: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {
    const suffix = randomBytes(5).toString('hex');
    this.database = `herald_bench_${suffix}`;
    this.env = {
      ...process.env,
      DATABASE_URL: `${PG_SERVER}/${this.database}`,
      REDIS_URL,
      QUEUE_PREFIX: `herald-bench-${suffix}`,
      HERALD_SECRET: randomBytes(32).toString('base64url'),
      ...extraEnv,
    };
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        this.interrupted = true;
        console.error(`\n${signal}: cleaning up`);
        void this.cleanup().finally(() => process.exit(130));
      });
    }
  }

  cleanup(): Promise<void> {
    this.cleaning ??= (async () => {
      await Promise.all([...this.children].map((child) => this.stop(child)));
      if (this.databaseCreated) {
        await withClient(`${PG_SERVER}/postgres`, (db) =>
          db.query(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`),
        ).catch((error: unknown) => console.error(`could not drop ${this.database}:`, error));
      }
      await deleteRedisKeys(`${hashTaggedPrefix(this.env.QUEUE_PREFIX)}:*`).catch(() => undefined);
    })();
    return this.cleaning;
  }

  /** Runs `main`, reports a failure (unless interrupted: the signal handler cleans up), cleans up. */
  main(main: () => Promise<void>): void {
    void main()
      .catch((error: unknown) => {
        if (this.interrupted) return;
        console.error(error instanceof Error ? error.message : error);
        process.exitCode = 1;
      })
      .finally(() => this.cleanup());
  }

  async stop(child: ChildProcess): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    this.children.delete(child);
  }

  /** Counts a child started elsewhere (e.g. forked) among those stopped on clean-up. */
  adopt(child: ChildProcess): void {
    this.children.add(child);
  }

  /** Runs a command to completion (bounded), returning stdout; stderr goes into the error. */
  run(
    file: string,
    args: string[],
    options: { extraEnv?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
  ): Promise<string> {
    return new Promise((done, fail) => {
      const child = execFile(
        file,
        args,
        {
          cwd: ROOT,
          env: { ...this.env, ...options.extraEnv },
          timeout: options.timeoutMs ?? this.timeoutMs,
          maxBuffer: 64 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          this.children.delete(child);
          if (!error) return done(stdout);
          // Name the command, not its arguments: those can hold the API key.
          const how = error.signal ? `killed by ${error.signal}` : `exit code ${error.code}`;
          fail(new Error(`${file} ${args[0]} failed (${how})\n${stdout}${stderr}`));
        },
      );
      this.children.add(child);
    });
  }

  /** `node …args` to completion, as `run`. */
  node(...args: string[]): Promise<string> {
    return this.run(process.execPath, args);
  }

  /** A long-running node child whose last output lines are kept, to show if it dies. */
  start(args: string[], extraEnv: NodeJS.ProcessEnv = {}, ipc = false): Started {
    const stdio: StdioOptions = ipc
      ? ['ignore', 'pipe', 'pipe', 'ipc']
      : ['ignore', 'pipe', 'pipe'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...this.env, ...extraEnv },
      stdio,
    });
    this.children.add(child);
    // The pipes must be drained either way.
    const output: string[] = [];
    const keep = (chunk: Buffer) => output.push(chunk.toString()) > 50 && output.shift();
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let takingJobs = false;
    // The end of the last chunk, for a line split across two.
    let tail = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString();
      takingJobs ||= text.includes(TAKING_JOBS_LINE);
      tail = text.slice(-TAKING_JOBS_LINE.length);
    });
    return { child, output, takingJobs: () => takingJobs };
  }

  build(): Promise<string> {
    // BENCH_BUILD=0: dist/ is current already (repeated runs, or tests using it meanwhile).
    if (process.env.BENCH_BUILD === '0') return Promise.resolve('');
    return this.run('npm', ['run', '-s', 'build']);
  }

  /** Creates the throwaway database (dropped on clean-up) by migrating it. */
  async migrate(): Promise<void> {
    this.databaseCreated = true;
    await this.node('dist/platform/database/migrate-main.js');
  }

  /** The operator CLI (compiled), its JSON answer parsed. */
  async cli(...args: string[]): Promise<{ id: string; key: string }> {
    return JSON.parse(await this.node('dist/cli/cli.js', ...args)) as { id: string; key: string };
  }
}

/**
 * How `npm run start:worker` starts a worker: the leading `NAME=value` settings of the script
 * in package.json and its Node flags, plus BENCH_NODE_ARGS (e.g. `--cpu-prof
 * --cpu-prof-dir=var/prof`), so a bench runs the worker as production does (its heap limits
 * decide its RSS and its speed).
 */
export function workerCommand(): { env: Record<string, string>; args: string[] } {
  const { env, args } = scriptCommand('start:worker', 'dist/worker.js');
  return { env, args };
}

/**
 * How an npm script of package.json starts `entry`: its leading `NAME=value` settings, its
 * Node flags (plus BENCH_NODE_ARGS) and the arguments after the entry point.
 */
export function scriptCommand(
  script: string,
  entry: string,
): { env: Record<string, string>; args: string[]; after: string[] } {
  const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = scripts[script].trim().split(/\s+/);
  const node = words.indexOf('node');
  const env = Object.fromEntries(
    words.slice(0, node).map((word) => word.split('=', 2) as [string, string]),
  );
  const at = words.indexOf(entry);
  const flags = words.slice(node + 1, at);
  return {
    env,
    args: [...flags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)],
    after: words.slice(at + 1),
  };
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? done(address.port) : fail(new Error('no port')),
      );
    });
  });
}
