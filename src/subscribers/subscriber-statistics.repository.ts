import { Injectable } from '@nestjs/common';
import type { FeedbackKind } from '../message-refs/feedback-report';
import type { AccountId } from '../platform/database/account-id';
import {
  type ComposedStatement,
  relation,
  type Relation,
} from '../platform/database/composed-statement';
import { SOFT_BOUNCE_LIMIT, SuppressionReason } from '../suppression/suppression-reason';
import type { Db } from '../platform/database/db';
import * as sql from './subscribers.sql';

/** What a feedback report did to a subscriber: whether (and why) to suppress the address. */
export interface FeedbackEffect {
  suppress: SuppressionReason | undefined;
  emailNormalized: string;
}

/** The messages of an outcome write that the recipients' part counts. */
export type CampaignSends = Relation<'subscriber_id' | 'delivered' | 'hard_bounce' | 'soft_bounce'>;
/** What the recipients' part names: each address counted, and whether to suppress it now. */
export type CountedAddresses = Relation<'email_normalized' | 'suppress'>;
const COUNTED: CountedAddresses = relation('counted');

/**
 * The only writer of subscriber statistics: the stat_* counters, last_*_at, and the
 * `bounced` status a hard bounce sets in the same statement. Everything is counted inside
 * the transaction that records the send or the event, so the numbers say what really
 * happened. The SQL is in subscribers.sql.ts.
 */
@Injectable()
export class SubscriberStatisticsRepository {
  /**
   * Adds the recipients' part of an outcome write to `statement`: every message of the
   * relation `sends` is counted on its subscriber (see countCampaignSendsPart), naming
   * `counted`, the addresses counted and whether each must now be suppressed.
   */
  addCampaignSends(
    statement: ComposedStatement,
    accountId: AccountId,
    sends: CampaignSends,
  ): CountedAddresses {
    statement.with(
      sql.countCampaignSendsPart({ account: statement.param(accountId), sends: sends.name }),
    );
    return COUNTED;
  }

  /**
   * Adds the recipient's part of a delivered transactional message's outcome write: counted
   * on the subscriber with this address, if any, when the relation `sent` holds a row.
   */
  addTransactionalDelivery(
    statement: ComposedStatement,
    accountId: AccountId,
    emailNormalized: string,
    sent: Relation<never>,
  ): void {
    statement.with(
      sql.countTransactionalDeliveryPart({
        account: statement.param(accountId),
        email: statement.param(emailNormalized),
        sent: sent.name,
      }),
    );
  }

  /**
   * A transactional message to this address refused by the relay, if a subscriber has it.
   * True when that was the SOFT_BOUNCE_LIMIT-th soft bounce in a row.
   */
  async countTransactionalBounce(
    accountId: AccountId,
    emailNormalized: string,
    hard: boolean,
    tx: Db,
  ): Promise<boolean> {
    const rows = await tx.$queryRaw<{ suppress: boolean }[]>(
      sql.countTransactionalBounce(accountId, emailNormalized, hard),
    );
    return rows[0]?.suppress ?? false;
  }

  /**
   * A bounce, complaint or unsubscribe report about a message to this subscriber. Says
   * whether the address is to be suppressed, and why: a hard bounce, the SOFT_BOUNCE_LIMIT-th
   * soft bounce in a row, a complaint, an unsubscribe. Undefined when the subscriber is gone.
   */
  async applyFeedback(
    accountId: AccountId,
    id: string,
    kind: FeedbackKind,
    tx: Db,
  ): Promise<FeedbackEffect | undefined> {
    const [row] = await tx.$queryRaw<{ streak: number; email_normalized: string }[]>(
      sql.applyFeedback(accountId, id, kind),
    );
    if (!row) return undefined;
    const suppress =
      kind === 'soft_bounce' ? (row.streak >= SOFT_BOUNCE_LIMIT ? 'hard_bounce' : undefined) : kind;
    return { suppress, emailNormalized: row.email_normalized };
  }

  /** One open or click; false when the subscriber no longer exists (erased meanwhile). */
  async countEngagement(
    accountId: AccountId,
    subscriberId: string,
    kind: sql.EngagementKind,
    tx: Db,
  ): Promise<boolean> {
    return (await tx.$executeRaw(sql.countEngagement(kind, accountId, subscriberId))) > 0;
  }

  /** Revenue of a conversion; false when the subscriber no longer exists. */
  async addRevenue(accountId: AccountId, id: string, cents: number, tx: Db): Promise<boolean> {
    return (await tx.$executeRaw(sql.addRevenue(accountId, id, cents))) > 0;
  }
}
