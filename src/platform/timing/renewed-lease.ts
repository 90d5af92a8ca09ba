import { Logger } from '@nestjs/common';
import { PeriodicTask } from './periodic-task';

/** How long a lease lasts, how often it is renewed, and how much of it is not trusted. */
export interface LeaseTerms {
  leaseMs: number;
  renewEveryMs: number;
  /**
   * Held back from the end of the lease by this process's own judgement, for the clocks and
   * the time a hand-off to SMTP takes.
   */
  marginMs: number;
}

/**
 * A lease on rows in PostgreSQL (a delivery run's, a transactional message's claim), renewed
 * in the background while its holder works. The holder asks `holds` right before each
 * irrevocable step (handing a message to SMTP): judged by this process's own clock from the
 * last renewal that got through, so a holder that was frozen, or cut off from PostgreSQL,
 * stops before anyone can have taken its rows over. A renewal the database refuses (the lease
 * had lapsed and may be another's) ends the lease for good; one that fails (PostgreSQL away)
 * changes nothing, and the lease runs out by itself unless a later renewal gets through.
 */
export class RenewedLease {
  private validUntil: number;
  private revoked = false;
  private ended = false;
  private readonly renewer: PeriodicTask;

  /**
   * `askedAt`: when the lease was asked for (before the round trip that took it). `renewal`
   * extends it in the database: false when the database refused. `onRevoked` is told once.
   */
  constructor(
    private readonly terms: LeaseTerms,
    askedAt: number,
    private readonly renewal: () => Promise<boolean>,
    private readonly onRevoked: () => void,
    logger: Logger,
  ) {
    this.validUntil = askedAt + terms.leaseMs - terms.marginMs;
    this.renewer = new PeriodicTask(
      'renewing a lease',
      terms.renewEveryMs,
      () => this.renewOnce(),
      logger,
    );
    this.renewer.start();
  }

  /** Whether the holder may still act on the rows. */
  get holds(): boolean {
    return !this.revoked && Date.now() < this.validUntil;
  }

  /** The rows may belong to another holder by now (refused, or past the margin too). */
  get lost(): boolean {
    return this.revoked || Date.now() >= this.validUntil + this.terms.marginMs;
  }

  /**
   * `holds`, after one renewal first if the lease is close to its end by now (a slow database
   * or a long pause): a lease that can still be kept is kept.
   */
  async holdsAfterRenewal(): Promise<boolean> {
    if (!this.holds && !this.revoked) await this.renewer.runNow();
    return this.holds;
  }

  /** Stops renewing: the holder is done. */
  end(): void {
    this.ended = true;
    void this.renewer.stop();
  }

  private async renewOnce(): Promise<void> {
    if (this.revoked || this.ended) return;
    const askedAt = Date.now();
    try {
      if (await this.renewal()) {
        this.validUntil = askedAt + this.terms.leaseMs - this.terms.marginMs;
      } else if (!this.ended) {
        this.revoked = true;
        this.onRevoked();
      }
    } catch {
      // PostgreSQL is away: the lease runs out by itself unless a later renewal gets through.
    }
  }
}
