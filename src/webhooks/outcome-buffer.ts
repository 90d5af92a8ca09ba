/**
 * Collects items as they arrive and hands them to `write` in small batches: at most
 * `maxBatch` at once, at most `maxDelayMs` (asked when a batch starts) after the first of a
 * batch arrived. Writes run one at a time, in arrival order; a failed write is the writer's to
 * report.
 */
export class OutcomeBuffer<T> {
  private waiting: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: { maxBatch: number; maxDelayMs: number | (() => number) },
  ) {}

  add(item: T): void {
    this.waiting.push(item);
    if (this.waiting.length >= this.options.maxBatch) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.delay());
  }

  private delay(): number {
    const { maxDelayMs } = this.options;
    return typeof maxDelayMs === 'number' ? maxDelayMs : maxDelayMs();
  }

  /** Writes whatever waits; resolves when every write is done. */
  async close(): Promise<void> {
    this.flush();
    await this.writing;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.writing = this.writing.then(() => this.write(batch)).catch(() => undefined);
  }
}
