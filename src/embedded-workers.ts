import { Logger } from '@nestjs/common';
import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { ALL_IN_ONE_WORKER_NICE } from './platform/cpu-priority';
import { askForMetrics } from './platform/metrics/metrics-ipc';
import type { MetricsSource } from './platform/metrics/herald-metrics';

/** The first pause before a worker that died on its own is started again; it doubles. */
const FIRST_RESTART_MS = 1_000;
const LONGEST_RESTART_MS = 30_000;
/** A worker that ran this long before dying is started again after the first pause. */
const STEADY_MS = 60_000;
/** How long before the parent's own deadline it kills workers still closing. */
const KILL_MARGIN_MS = 1_000;

/**
 * `npm start`'s send workers: dist/worker.js in a child process of the API's. Whatever they do
 * on the CPU (rendering, rewriting thousands of links, composing and signing a large message)
 * then never delays a request: the API's event loop is its own, and the child runs at a lower
 * CPU priority (WORKER_NICE, default ALL_IN_ONE_WORKER_NICE), so a campaign that keeps the
 * cores busy leaves the API's requests the CPU they need. The child shares the parent's
 * environment and output; it closes when the parent's IPC channel goes (the parent ended, even
 * by SIGKILL), and the parent asks it to close on SIGTERM/SIGINT and waits for it. A worker that
 * dies on its own is started again, after a pause that doubles while it keeps dying.
 * `graceMs` is the parent's SHUTDOWN_GRACE_SECONDS: a child still closing just before it ends
 * is killed, so it never outlives the parent (its jobs are then recovered like a crashed
 * worker's).
 */
export class EmbeddedWorkers {
  private readonly logger = new Logger(EmbeddedWorkers.name);
  private child: ChildProcess | undefined;
  private stopping = false;
  private pauseMs = FIRST_RESTART_MS;
  private restart: NodeJS.Timeout | undefined;

  constructor(
    private readonly graceMs: number,
    private readonly workerNice = ALL_IN_ONE_WORKER_NICE,
  ) {}

  start(): void {
    const started = Date.now();
    // The child reads its settings from the environment, as every Herald process does.
    const env = { ...process.env, WORKER_NICE: String(this.workerNice) };
    const child = fork(join(__dirname, 'worker.js'), [], { stdio: 'inherit', env });
    this.child = child;
    child.once('exit', (code, signal) => {
      this.child = undefined;
      if (this.stopping) return;
      if (Date.now() - started >= STEADY_MS) this.pauseMs = FIRST_RESTART_MS;
      this.logger.error(
        `the send workers ended (${signal ?? `exit code ${code}`}): starting them again in ${this.pauseMs} ms`,
      );
      this.restart = setTimeout(() => this.start(), this.pauseMs);
      this.pauseMs = Math.min(this.pauseMs * 2, LONGEST_RESTART_MS);
    });
  }

  /** The workers' metrics (asked over the IPC channel), or undefined while there are none. */
  metrics(): ReturnType<MetricsSource> {
    return askForMetrics(this.child);
  }

  /** Asks the workers to close and waits until they have (they exit by themselves within the grace). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restart);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const late = setTimeout(
      () => child.kill('SIGKILL'),
      Math.max(this.graceMs - KILL_MARGIN_MS, 0),
    );
    await exited;
    clearTimeout(late);
  }
}
