import { Injectable } from '@nestjs/common';
import { PrismaService } from '../platform/database/prisma.service';
import { SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import {
  ClaimedMessage,
  MessageRef,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';

/**
 * How a send ends, written together with what it means for the recipient: the message row,
 * and (when the address belongs to a subscriber of the account) their statistics, in one
 * transaction, so the two never disagree.
 */
@Injectable()
export class TransactionalOutcomes {
  constructor(
    private readonly prisma: PrismaService,
    private readonly messages: TransactionalMessagesRepository,
    private readonly statistics: SubscriberStatistics,
  ) {}

  /** The relay accepted the message: sent, and counted as delivered. */
  async sent(message: ClaimedMessage, headerMessageId: string, emailNormalized: string) {
    await this.prisma.$transaction(async (tx) => {
      await this.messages.markSent(message.accountId, message.id, headerMessageId, tx);
      await this.statistics.recordTransactional(
        message.accountId,
        emailNormalized,
        { delivered: true },
        tx,
      );
    });
  }

  /**
   * Ends a message as failed. When the relay refused it (`bounce`), the attempt counts in the
   * recipient's statistics as campaign sends do: sent, and a hard (5xx) or soft bounce; a
   * hard bounce marks the subscriber `bounced`, so campaigns stop mailing the address.
   */
  async failed(
    ref: MessageRef,
    error: string,
    bounce?: { hard: boolean; emailNormalized: string },
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const ended = await this.messages.markFailed(ref, error, tx);
      if (!ended || !bounce) return;
      await this.statistics.recordTransactional(
        ref.accountId,
        bounce.emailNormalized,
        { delivered: false, hardBounce: bounce.hard },
        tx,
      );
    });
  }
}
