import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

/**
 * A pass that runs every `everyMs` in this process, never two at once: a tick that finds the
 * last pass still running skips. A failed pass is logged, and the next tick is the retry. The
 * timer does not keep the process alive; `stop` waits for a pass that is running.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    /** What the pass does, for the log line of a failure. */
    private readonly what: string,
    private readonly everyMs: number,
    private readonly pass: () => Promise<unknown>,
    private readonly logger: Logger,
    /** How loud a failed pass is: `warn` where the next pass is the whole remedy. */
    private readonly failureLevel: 'error' | 'warn' = 'error',
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runNow(), this.everyMs);
    this.timer.unref();
  }

  /** One pass now, or, when one is running, that one. Never rejects. */
  runNow(): Promise<void> {
    this.running ??= this.pass()
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger[this.failureLevel](`${this.what} failed: ${String(error)}`);
        },
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

/**
 * A provider whose work is one PeriodicTask: its pass starts on the timer once the app has
 * booted, and stops (a running pass awaited) as the modules are destroyed, before the
 * connections it uses close.
 */
export abstract class PeriodicService implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger = new Logger(this.constructor.name);
  private readonly task: PeriodicTask;

  protected constructor(what: string, everyMs: number) {
    this.task = new PeriodicTask(what, everyMs, () => this.pass(), this.logger);
  }

  /** The work of one tick; a failure is logged and the next tick is the retry. */
  protected abstract pass(): Promise<unknown>;

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One pass now, or the one running. */
  tick(): Promise<void> {
    return this.task.runNow();
  }
}
