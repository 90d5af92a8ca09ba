import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { alive, childrenOf, ROOT } from './processes';
import { waitFor } from './wait-for';

/**
 * `api`: `--api-only`; `worker`: dist/worker.js; `all`: `npm start`'s API with workers;
 * `smtp`: `start:smtp`'s SMTP submission alone (SUBMISSION_SMTP_PORT in its env).
 */
export type HeraldRole = 'api' | 'worker' | 'all' | 'smtp';

/**
 * One Herald process of a test (an `--api-only` API, a worker, or both in one, from dist/: `npm run build`
 * first), with the signals a fault test sends it. Its output is kept for failure messages, and
 * it knows whether it ended by one of our signals or on its own (a crash).
 */
export class HeraldProcess {
  readonly output: string[] = [];
  /** Set when the process ended: its exit code, or the signal that ended it. */
  ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly child: ChildProcess;
  private readonly exit: Promise<void>;
  private ending = false;

  private constructor(
    readonly role: HeraldRole,
    readonly name: string,
    env: NodeJS.ProcessEnv,
  ) {
    const args = {
      api: ['dist/main.js', '--api-only'],
      worker: ['dist/worker.js'],
      all: ['dist/main.js'],
      smtp: ['dist/submission-main.js'],
    }[role];
    this.child = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.keep(chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => this.keep(chunk));
    this.exit = once(this.child, 'exit').then(([code, signal]) => {
      this.ended = { code: code as number | null, signal: signal as NodeJS.Signals | null };
    });
  }

  static start(role: HeraldRole, name: string, env: NodeJS.ProcessEnv): HeraldProcess {
    return new HeraldProcess(role, name, env);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.ended === undefined;
  }

  /** Ended without being told to: what a store outage must never cause. */
  get crashed(): boolean {
    return this.ended !== undefined && !this.ending;
  }

  /** SIGKILL, synchronous (for a fault injected at an exact moment); see killed(). */
  killNow(): void {
    this.ending = true;
    this.child.kill('SIGKILL');
  }

  /** SIGKILL, then waits until it is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.killNow();
    await this.exit;
  }

  /**
   * SIGKILL to it and to the processes it started, then waits until they are all gone: a
   * test's clean-up. Killed alone, npm start's API leaves its worker child closing for up to
   * the shutdown grace, still writing to the database and Redis keys the clean-up removes.
   */
  async killWithChildren(): Promise<void> {
    if (!this.running) return;
    const children = childrenOf(this.pid);
    this.killNow();
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    await this.exit;
    await waitFor(() => !children.some(alive), {
      message: `${this.name}'s processes outlived SIGKILL`,
    });
  }

  /** SIGSTOP: the process stands still (no timers, no I/O) until thaw(), like a long GC pause. */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  /** SIGTERM and waits for the graceful exit (SIGKILL if it takes over `graceMs`). */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.ending = true;
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  /** Waits until it has ended, however. */
  async exited(): Promise<void> {
    await this.exit;
  }

  /** The last lines it wrote, for a failure message. */
  tail(lines = 40): string {
    const text = this.output.join('').split('\n');
    return `--- ${this.name} (${this.role}, pid ${this.pid}) ---\n${text.slice(-lines).join('\n')}`;
  }

  private keep(chunk: Buffer): void {
    this.output.push(chunk.toString());
    // Bounded: a process that logs a line per message must not fill the test's memory.
    if (this.output.length > 2000) this.output.splice(0, 1000);
  }
}
