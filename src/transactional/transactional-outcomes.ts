import { Inject, Injectable } from '@nestjs/common';
import type { HeraldConfig, SmtpRetryPolicy } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { ComposedStatement } from '../platform/database/composed-statement';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { MailEvents } from '../stats/mail-events';
import { MessageLog } from '../messages/message-log';
import { SuppressionList } from '../suppression/suppression-list';
import { transactionalMailEvents } from './transactional-events';
import {
  ClaimedMessage,
  TransactionalMessageId,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';

/**
 * How a send ends, written together with what it means for the recipient: the message row,
 * (when the address belongs to a subscriber of the account) their statistics, the day's
 * counters and the message log, atomically, so they never disagree. A delivery, the hot
 * path, is one composed statement; the rarer ends are a transaction.
 */
@Injectable()
export class TransactionalOutcomes {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
    private readonly messages: TransactionalMessagesRepository,
    private readonly statistics: SubscriberStatistics,
    private readonly suppressions: SuppressionList,
    private readonly mailEvents: MailEvents,
    private readonly messageLog: MessageLog,
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
    reply?: string,
  ): Promise<boolean> {
    const { accountId } = message;
    const at = new Date();
    const ref = { transactionalId: message.id, email: message.toAddress ?? emailNormalized };
    const events = transactionalMailEvents(
      { ...ref, messageId: headerMessageId },
      { delivered: true },
      reply,
    );
    // One statement of each module's part, as a campaign's outcome write: the message row,
    // the recipient's statistics, the day's counters and the message log, no BEGIN or COMMIT.
    const statement = new ComposedStatement();
    const sent = this.messages.addSent(statement, message, headerMessageId);
    this.statistics.addTransactionalDelivery(statement, accountId, emailNormalized, sent);
    this.mailEvents.addMessageSend(statement, accountId, at, message.id, events, sent);
    const query = statement.build(`SELECT count(*)::int AS n FROM ${sent.name}`, {
      named: this.config.database.namedStatements,
    });
    const recorded = (rows: { n: number }[]) => rows[0].n > 0;
    if (!(await this.mailEvents.publishesAny(accountId, ['sent', 'delivered']))) {
      return recorded((await this.pool.query<{ n: number }>(query)).rows);
    }
    // Only an account with webhook endpoints for these events adds a transaction, for them.
    return this.pool.transaction(async (client) => {
      if (!recorded((await client.query<{ n: number }>(query)).rows)) return false;
      await this.mailEvents.publishCounted(client, accountId, events, at);
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
    bounce?: { hard: boolean; emailNormalized: string; smtpCode?: number },
    epoch?: number,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const ended = await this.messages.markFailed(ref, error, tx, epoch);
      if (!ended) return;
      if (!bounce) {
        // It never reached the relay's answer: no mail event, but the log says why.
        await this.messageLog.append(tx, ref.accountId, [
          { message: { messageId: ref.id }, type: 'failed', reason: error },
        ]);
        return;
      }
      const softLimit = await this.statistics.recordTransactionalBounce(
        ref.accountId,
        bounce.emailNormalized,
        bounce.hard,
        tx,
      );
      await this.mailEvents.record(
        tx,
        ref.accountId,
        transactionalMailEvents(
          { transactionalId: ref.id, email: bounce.emailNormalized },
          { delivered: false, hardBounce: bounce.hard, smtpCode: bounce.smtpCode },
          error,
        ),
      );
      if (bounce.hard || softLimit) {
        await this.suppressions.suppress(ref.accountId, bounce.emailNormalized, 'hard_bounce', tx);
      }
    });
  }

  /**
   * The relay refused the message for now: deferred on its row to the next try (see
   * TransactionalMessagesRepository.defer), and the refusal in the message log, together.
   * Undefined when the claim is no longer this worker's or the message has ended.
   */
  deferred(
    claim: ClaimedMessage,
    error: string,
    smtpCode: number | undefined,
    policy: Pick<SmtpRetryPolicy, 'firstSeconds' | 'maxSeconds'>,
  ): Promise<number | undefined> {
    return this.prisma.$transaction(async (tx) => {
      const delayMs = await this.messages.defer(claim, error, policy, tx);
      if (delayMs !== undefined) {
        await this.messageLog.append(tx, claim.accountId, [
          { message: { messageId: claim.id }, type: 'deferred', smtpCode, reason: error },
        ]);
      }
      return delayMs;
    });
  }
}
