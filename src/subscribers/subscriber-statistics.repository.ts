import { Injectable } from '@nestjs/common';
import type { FeedbackKind } from '../feedback/feedback-report';
import type { AccountId } from '../platform/database/account-id';
import { SOFT_BOUNCE_LIMIT, SuppressionReason } from '../suppression/suppression-reason';
import type { Db, PgClient } from '../platform/database/db';
import * as sql from './subscribers.sql';

/** One campaign message's fate, as the recipient's statistics count it. */
export interface CampaignSend {
  subscriberId: string;
  /** Accepted by the SMTP server (250); otherwise failed. */
  delivered: boolean;
  /** A permanent refusal (5xx): counted as a hard bounce, and the subscriber is `bounced`. */
  hardBounce: boolean;
}

/** What a feedback report did to a subscriber: whether (and why) to suppress the address. */
export interface FeedbackEffect {
  suppress: SuppressionReason | undefined;
  emailNormalized: string;
}

/**
 * The only writer of subscriber statistics: the stat_* counters, last_*_at, and the
 * `bounced` status a hard bounce sets in the same statement. Everything is counted inside
 * the transaction that records the send or the event, so the numbers say what really
 * happened. The SQL is in subscribers.sql.ts.
 */
@Injectable()
export class SubscriberStatisticsRepository {
  /**
   * A chunk of campaign sends in one UPDATE, inside the campaign's outcome transaction.
   * Returns the addresses to suppress: a hard bounce, or the SOFT_BOUNCE_LIMIT-th soft one.
   */
  async countCampaignSends(
    accountId: AccountId,
    sends: CampaignSend[],
    client: PgClient,
  ): Promise<string[]> {
    if (sends.length === 0) return [];
    // Rows are locked in id order (see the statement); parallel arrays follow the same order.
    const sorted = [...sends].sort((x, y) => (x.subscriberId < y.subscriberId ? -1 : 1));
    const { rows } = await client.query<{ email_normalized: string; suppress: boolean }>(
      sql.COUNT_CAMPAIGN_SENDS,
      [
        accountId,
        sorted.map((s) => s.subscriberId),
        sorted.map((s) => (s.delivered ? 1 : 0)),
        sorted.map((s) => (!s.delivered && s.hardBounce ? 1 : 0)),
        sorted.map((s) => (!s.delivered && !s.hardBounce ? 1 : 0)),
      ],
    );
    return rows.filter((row) => row.suppress).map((row) => row.email_normalized);
  }

  /** A transactional message delivered to this address, if a subscriber has it. */
  async countTransactionalDelivery(
    accountId: AccountId,
    emailNormalized: string,
    tx: Db,
  ): Promise<void> {
    await tx.$executeRaw(sql.countTransactionalDelivery(accountId, emailNormalized));
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
