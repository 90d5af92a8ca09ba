/**
 * Events per client address within a sliding window, in memory (per process): how many
 * connections an address opened in the last minute, or how many logins it failed lately.
 */
export class AddressWindow {
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Events of this address still inside the window. */
  count(address: string): number {
    return this.live(address).length;
  }

  /** Records an event; returns the address's count including it. */
  add(address: string): number {
    const times = this.live(address);
    times.push(this.now());
    this.recent.set(address, times);
    this.forgetQuiet();
    return times.length;
  }

  private live(address: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const times = (this.recent.get(address) ?? []).filter((at) => at > cutoff);
    if (times.length === 0) this.recent.delete(address);
    else this.recent.set(address, times);
    return times;
  }

  /** Now and then, so the map stays as small as the traffic. */
  private forgetQuiet(): void {
    if (this.recent.size <= 10_000) return;
    for (const address of [...this.recent.keys()]) this.live(address);
  }
}
