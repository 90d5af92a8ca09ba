import { Injectable } from '@nestjs/common';
import type { FeedbackKind } from '../message-refs/feedback-report';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import type { Db } from '../platform/database/db';
import type { EngagementKind } from './subscribers.sql';
import {
  CampaignSends,
  CountedAddresses,
  FeedbackEffect,
  SubscriberStatisticsRepository,
} from './subscriber-statistics.repository';

export type { FeedbackEffect } from './subscriber-statistics.repository';

/**
 * How other modules count what happened to mail sent to subscribers: campaign sends, the
 * transactional messages to a subscriber's address, opens and clicks. Each method joins the
 * caller's transaction, so a statistic moves exactly when the fact it counts is recorded.
 */
@Injectable()
export class SubscriberStatistics {
  constructor(private readonly statistics: SubscriberStatisticsRepository) {}

  /**
   * Adds the recipients' part of a campaign's outcome write (the send hot path) to
   * `statement`: each message of the relation `sends` (subscriber_id, delivered, hard_bounce,
   * soft_bounce) is counted on its subscriber, and a hard bounce, or too many soft ones in a
   * row, marks the subscriber bounced. Names `counted`: (email_normalized, suppress), the
   * addresses to suppress.
   */
  addCampaignSends(
    statement: ComposedStatement,
    accountId: AccountId,
    sends: CampaignSends,
  ): CountedAddresses {
    return this.statistics.addCampaignSends(statement, accountId, sends);
  }

  /**
   * Adds the recipient's part of a delivered transactional message's outcome write to
   * `statement`: counted like a campaign send on the subscriber of the account with this
   * address, if any, when the relation `sent` holds a row (the send was recorded).
   */
  addTransactionalDelivery(
    statement: ComposedStatement,
    accountId: AccountId,
    emailNormalized: string,
    sent: Relation<never>,
  ): void {
    this.statistics.addTransactionalDelivery(statement, accountId, emailNormalized, sent);
  }

  /**
   * The relay refused a transactional message: counted like a campaign send's bounce when the
   * address belongs to a subscriber of the account; a hard bounce, or the SOFT_BOUNCE_LIMIT-th
   * soft one in a row, marks that subscriber `bounced`, so campaigns stop mailing the address.
   * True when that soft-bounce limit was reached.
   */
  recordTransactionalBounce(
    accountId: AccountId,
    emailNormalized: string,
    hardBounce: boolean,
    tx: Db,
  ): Promise<boolean> {
    return this.statistics.countTransactionalBounce(accountId, emailNormalized, hardBounce, tx);
  }

  /** A bounce, complaint or unsubscribe report about a message to this subscriber. */
  applyFeedback(
    accountId: AccountId,
    id: string,
    kind: FeedbackKind,
    tx: Db,
  ): Promise<FeedbackEffect | undefined> {
    return this.statistics.applyFeedback(accountId, id, kind, tx);
  }

  /** An open or a click; false when the subscriber no longer exists. */
  recordEngagement(accountId: AccountId, subscriberId: string, kind: EngagementKind, tx: Db) {
    return this.statistics.countEngagement(accountId, subscriberId, kind, tx);
  }

  /** A conversion's revenue (POST /v1/conversions); false when the subscriber is gone. */
  addRevenue(accountId: AccountId, subscriberId: string, cents: number, tx: Db) {
    return this.statistics.addRevenue(accountId, subscriberId, cents, tx);
  }
}
