import { Logger } from '@nestjs/common';
import { AccountId } from '../platform/database/account-id';
import { RenewedLease } from '../platform/timing/renewed-lease';
import {
  TRANSACTIONAL_CLAIM_LEASE_MS,
  TRANSACTIONAL_LEASE_MARGIN_MS,
  TRANSACTIONAL_LEASE_RENEW_MS,
} from './transactional.settings';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';

const TERMS = {
  leaseMs: TRANSACTIONAL_CLAIM_LEASE_MS,
  renewEveryMs: TRANSACTIONAL_LEASE_RENEW_MS,
  marginMs: TRANSACTIONAL_LEASE_MARGIN_MS,
};

/**
 * A worker's claim on one message, its lease renewed in the background from the claim until
 * the outcome is written, however long the SMTP exchange takes. The worker asks `holds` right
 * before it hands the message to SMTP: judged by this process's own clock from the last
 * renewal that got through, so a worker that was frozen, or cut off from PostgreSQL, stops
 * before the sweep can have requeued the message for another. A renewal refused by the
 * database (the claim lapsed and was taken over) ends the claim for good.
 */
export class TransactionalClaim {
  private static readonly logger = new Logger(TransactionalClaim.name);
  private readonly lease: RenewedLease;

  private constructor(
    readonly message: ClaimedMessage,
    messages: TransactionalMessagesRepository,
    askedAt: number,
  ) {
    this.lease = new RenewedLease(
      TERMS,
      askedAt,
      () => messages.renewLease(message, TRANSACTIONAL_CLAIM_LEASE_MS),
      () =>
        TransactionalClaim.logger.warn(
          { messageId: message.id },
          'claim lapsed and was taken over',
        ),
      TransactionalClaim.logger,
    );
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
    return this.lease.holds;
  }

  /** `holds`, after one renewal first if the lease is close to its end by now. */
  holdsToSend(): Promise<boolean> {
    return this.lease.holdsAfterRenewal();
  }

  /** Stops renewing: the outcome is written (or the claim given up). */
  end(): void {
    this.lease.end();
  }
}
