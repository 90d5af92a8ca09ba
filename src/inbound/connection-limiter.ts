/**
 * A sliding one-minute window of connections per client address, in memory: enough to keep
 * one sender from monopolising the inbound port (reporting MTAs retry a 421 later).
 */
export class ConnectionLimiter {
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a connection; false when the address is over its budget. */
  admit(address: string): boolean {
    const cutoff = this.now() - 60_000;
    const times = (this.recent.get(address) ?? []).filter((at) => at > cutoff);
    if (times.length >= this.perMinute) {
      this.recent.set(address, times);
      return false;
    }
    times.push(this.now());
    this.recent.set(address, times);
    // Forget quiet addresses now and then, so the map stays as small as the traffic.
    if (this.recent.size > 10_000) {
      for (const [key, list] of this.recent) {
        if (list.every((at) => at <= cutoff)) this.recent.delete(key);
      }
    }
    return true;
  }
}
