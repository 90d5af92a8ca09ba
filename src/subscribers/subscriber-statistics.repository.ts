import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
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

/**
 * The only writer of subscriber statistics: the stat_* counters, last_*_at, and the
 * `bounced` status a hard bounce sets in the same statement. Everything is counted inside
 * the transaction that records the send or the event, so the numbers say what really
 * happened. The SQL is in subscribers.sql.ts.
 */
@Injectable()
export class SubscriberStatisticsRepository {
  /** A chunk of campaign sends in one UPDATE, inside the campaign's outcome transaction. */
  async countCampaignSends(
    accountId: AccountId,
    sends: CampaignSend[],
    client: PgClient,
  ): Promise<void> {
    if (sends.length === 0) return;
    // Rows are locked in id order (see the statement); parallel arrays follow the same order.
    const sorted = [...sends].sort((x, y) => (x.subscriberId < y.subscriberId ? -1 : 1));
    await client.query(sql.COUNT_CAMPAIGN_SENDS, [
      accountId,
      sorted.map((s) => s.subscriberId),
      sorted.map((s) => (s.delivered ? 1 : 0)),
      sorted.map((s) => (!s.delivered && s.hardBounce ? 1 : 0)),
      sorted.map((s) => (!s.delivered && !s.hardBounce ? 1 : 0)),
    ]);
  }

  /** A transactional message delivered to this address, if a subscriber has it. */
  async countTransactionalDelivery(
    accountId: AccountId,
    emailNormalized: string,
    tx: Db,
  ): Promise<void> {
    await tx.$executeRaw(sql.countTransactionalDelivery(accountId, emailNormalized));
  }

  /** A transactional message to this address refused by the relay, if a subscriber has it. */
  async countTransactionalBounce(
    accountId: AccountId,
    emailNormalized: string,
    hard: boolean,
    tx: Db,
  ): Promise<void> {
    await tx.$executeRaw(sql.countTransactionalBounce(accountId, emailNormalized, hard));
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
}
