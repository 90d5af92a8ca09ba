import { Injectable } from '@nestjs/common';
import { PrismaService } from '../platform/database/prisma.service';
import { SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { MailEvents } from '../stats/mail-events';
import { SuppressionList } from '../suppression/suppression-list';
import { transactionalMailEvents } from './transactional-events';
import {
  ClaimedMessage,
  TransactionalMessageId,
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
    private readonly suppressions: SuppressionList,
    private readonly mailEvents: MailEvents,
  ) {}

  /**
   * The relay accepted the message: sent, and counted as delivered; unless another worker had
   * taken the claim over (this one was presumed dead), which then counts its own send. False
   * in that case: the message may have gone twice.
   */
  async sent(
    message: ClaimedMessage,
    headerMessageId: string,
    emailNormalized: string,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      if (!(await this.messages.markSent(message, headerMessageId, tx))) return false;
      await this.statistics.recordTransactional(
        message.accountId,
        emailNormalized,
        { delivered: true },
        tx,
      );
      const ref = { transactionalId: message.id, email: message.toAddress ?? emailNormalized };
      await this.mailEvents.record(
        tx,
        message.accountId,
        transactionalMailEvents({ ...ref, messageId: headerMessageId }, { delivered: true }),
      );
      return true;
    });
  }

  /**
   * Ends a message as failed. When the relay refused it (`bounce`), the attempt counts in the
   * recipient's statistics as campaign sends do: sent, and a hard (5xx) or soft bounce; a
   * hard bounce, or the SOFT_BOUNCE_LIMIT-th soft one in a row, marks the subscriber
   * `bounced` and suppresses the address in the same transaction (a hard bounce suppresses
   * it even when it is no subscriber's). With `epoch` (a worker's claim), only while the claim
   * is still that worker's.
   */
  async failed(
    ref: TransactionalMessageId,
    error: string,
    bounce?: { hard: boolean; emailNormalized: string },
    epoch?: number,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const ended = await this.messages.markFailed(ref, error, tx, epoch);
      if (!ended || !bounce) return;
      const softLimit = await this.statistics.recordTransactional(
        ref.accountId,
        bounce.emailNormalized,
        { delivered: false, hardBounce: bounce.hard },
        tx,
      );
      await this.mailEvents.record(
        tx,
        ref.accountId,
        transactionalMailEvents(
          { transactionalId: ref.id, email: bounce.emailNormalized },
          { delivered: false, hardBounce: bounce.hard },
        ),
      );
      if (bounce.hard || softLimit) {
        await this.suppressions.suppress(ref.accountId, bounce.emailNormalized, 'hard_bounce', tx);
      }
    });
  }
}
