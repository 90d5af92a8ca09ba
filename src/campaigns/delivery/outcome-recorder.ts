import { Outcome } from '../ledger/recipient-outcome';

export interface RecorderOptions {
  /** At most this many outcomes in one write. */
  maxBatch: number;
}

/**
 * Writes delivery outcomes as messages finish, by group commit: while one write is in flight
 * the next outcomes gather, and go together as soon as it is done. `add` resolves once the
 * outcome is committed, so a sender that waits for it before taking its next message keeps
 * the window in which a message has its 250 but the ledger does not know yet to one SMTP
 * round trip and one write: only a crash inside that window can send someone the same message
 * twice. Writes are serialised, in arrival order.
 */
export class OutcomeRecorder {
  private waiting: { outcome: Outcome; written: () => void }[] = [];
  private writing = false;
  private idle: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly write: (outcomes: Outcome[]) => Promise<void>,
    private readonly options: RecorderOptions,
  ) {}

  /** Queues the outcome; resolves once it is written (or the recorder has failed). */
  add(outcome: Outcome): Promise<void> {
    return new Promise<void>((written) => {
      this.waiting.push({ outcome, written });
      if (!this.writing) this.idle = this.drain();
    });
  }

  /** Resolves once every write is done; throws the first failure. */
  async close(): Promise<void> {
    await this.idle;
    if (this.failure !== undefined) throw this.failure;
  }

  /** The first write failure, if any: the caller stops claiming more work. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.options.maxBatch);
        if (this.failure === undefined) {
          await this.write(batch.map((entry) => entry.outcome)).catch((error: unknown) => {
            this.failure ??= error instanceof Error ? error : new Error(String(error));
          });
        }
        for (const entry of batch) entry.written();
      }
    } finally {
      this.writing = false;
    }
  }
}
