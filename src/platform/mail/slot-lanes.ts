/** Who is waiting for a slot: one person's message, or one of a campaign's many. */
export type Lane = 'urgent' | 'bulk';

/**
 * A fixed number of slots, handed out in order of request within a lane, the urgent lane's
 * waiters always before the bulk lane's. A campaign keeps hundreds of messages waiting for the
 * process's SMTP connections; a password reset queued behind them would wait for all of them,
 * so a transactional message takes the next slot that frees instead.
 */
export class SlotLanes {
  private free: number;
  private readonly waiting: Record<Lane, (() => void)[]> = { urgent: [], bulk: [] };

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves with the slot's release once one is free for this lane; release it once. */
  async take(lane: Lane): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((granted) => this.waiting[lane].push(granted));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so a newcomer cannot take it in between.
      const next = this.waiting.urgent.shift() ?? this.waiting.bulk.shift();
      if (next) next();
      else this.free++;
    };
  }
}
