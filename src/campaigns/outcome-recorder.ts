import { Outcome } from './recipient-outcome';

export interface RecorderOptions {
  /** Write as soon as this many outcomes wait. */
  maxBatch: number;
  /** …or this long after the first of them arrived. */
  maxDelayMs: number;
}

/**
 * Collects delivery outcomes as messages finish and writes them in small bulk batches. The
 * delay bounds the window in which a message has its 250 but the ledger does not know yet:
 * only a crash inside that window can send someone the same message twice. Writes are
 * serialised, in arrival order.
 */
export class OutcomeRecorder {
  private waiting: Outcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly write: (outcomes: Outcome[]) => Promise<void>,
    private readonly options: RecorderOptions,
  ) {}

  add(outcome: Outcome): void {
    this.waiting.push(outcome);
    if (this.waiting.length >= this.options.maxBatch) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.maxDelayMs);
  }

  /** Writes whatever waits and resolves once every write is done; throws the first failure. */
  async close(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  /** The first write failure, if any: the caller stops claiming more work. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.writing = this.writing.then(() =>
      this.write(batch).catch((error: unknown) => {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
      }),
    );
  }
}
