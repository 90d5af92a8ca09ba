/**
 * The inbound port's connections that are open now, by client address, and the mail
 * transactions each has begun: one address may not hold more than `perAddress` connections
 * at once (a reporting MTA needs one or two; the rest of the port stays free for everyone
 * else), nor begin more than `mailsPerConnection` transactions on one (a sender with more
 * reconnects, and so passes the per-minute connection limit again).
 */
export class OpenConnections {
  private readonly sessions = new Map<string, { address: string; mails: number }>();
  private readonly perAddressCount = new Map<string, number>();

  constructor(
    private readonly perAddress: number,
    private readonly mailsPerConnection: number,
  ) {}

  /** Counts a new connection; false (and not counted) when its address holds enough. */
  admit(sessionId: string, address: string): boolean {
    const open = this.perAddressCount.get(address) ?? 0;
    if (open >= this.perAddress) return false;
    this.perAddressCount.set(address, open + 1);
    this.sessions.set(sessionId, { address, mails: 0 });
    return true;
  }

  /** Counts a MAIL FROM; false when the connection has begun its last allowed transaction. */
  beginMail(sessionId: string): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return true;
    session.mails++;
    return session.mails <= this.mailsPerConnection;
  }

  /** The connection closed (a refused one was never counted, so this is a no-op for it). */
  release(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    const open = (this.perAddressCount.get(session.address) ?? 1) - 1;
    if (open > 0) this.perAddressCount.set(session.address, open);
    else this.perAddressCount.delete(session.address);
  }
}
