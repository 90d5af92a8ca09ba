import { Logger } from '@nestjs/common';
import { AccountId } from '../platform/database/account-id';
import {
  TRANSACTIONAL_CLAIM_LEASE_MS,
  TRANSACTIONAL_LEASE_MARGIN_MS,
  TRANSACTIONAL_LEASE_RENEW_MS,
} from './transactional.settings';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';

/**
 * A worker's claim on one message, its lease renewed in the background from the claim until
 * the outcome is written, however long the SMTP exchange takes. The worker asks `holds` right
 * before it hands the message to SMTP: judged by this process's own clock from the last
 * renewal that got through, so a worker that was frozen, or cut off from PostgreSQL, stops
 * before the sweep can have requeued the message for another. A renewal refused by the
 * database (the claim lapsed and was taken over) ends the claim for good.
 */
export class TransactionalClaim {
  private readonly logger = new Logger(TransactionalClaim.name);
  private validUntil: number;
  private revoked = false;
  private ended = false;
  private renewing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly message: ClaimedMessage,
    private readonly messages: TransactionalMessagesRepository,
    askedAt: number,
  ) {
    this.validUntil = askedAt + TRANSACTIONAL_CLAIM_LEASE_MS - TRANSACTIONAL_LEASE_MARGIN_MS;
    this.timer = setInterval(() => void this.renew(), TRANSACTIONAL_LEASE_RENEW_MS);
    this.timer.unref();
  }

  /** Claims the message, or undefined when it is not claimable (see the repository). */
  static async take(
    messages: TransactionalMessagesRepository,
    accountId: AccountId,
    id: string,
  ): Promise<TransactionalClaim | undefined> {
    const askedAt = Date.now();
    const message = await messages.claim(accountId, id, TRANSACTIONAL_CLAIM_LEASE_MS);
    return message && new TransactionalClaim(message, messages, askedAt);
  }

  /** Whether the message may be handed to SMTP now. */
  get holds(): boolean {
    return !this.revoked && Date.now() < this.validUntil;
  }

  /**
   * `holds`, after one renewal first if the lease is close to its end by now (a slow database
   * or a long pause): a claim that can still be kept is kept.
   */
  async holdsToSend(): Promise<boolean> {
    if (!this.holds && !this.revoked) await this.renew();
    return this.holds;
  }

  /** Stops renewing: the outcome is written (or the claim given up). */
  end(): void {
    this.ended = true;
    clearInterval(this.timer);
  }

  private renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    if (this.revoked || this.ended) return;
    const askedAt = Date.now();
    try {
      if (await this.messages.renewLease(this.message, TRANSACTIONAL_CLAIM_LEASE_MS)) {
        this.validUntil = askedAt + TRANSACTIONAL_CLAIM_LEASE_MS - TRANSACTIONAL_LEASE_MARGIN_MS;
      } else if (!this.ended) {
        this.revoked = true;
        this.logger.warn({ messageId: this.message.id }, 'claim lapsed and was taken over');
      }
    } catch {
      // PostgreSQL is away: the lease runs out by itself unless a later renewal gets through.
    }
  }
}
