import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { newId } from '../platform/crypto/ids';
import { PrismaService } from '../platform/database/prisma.service';
import { FeedbackKind, FeedbackReport } from './feedback-report';
import { MessageRef } from './verp-address';

type Db = Prisma.TransactionClient;

/** The message a report is about, as found in the send records. */
export interface LocatedMessage {
  accountId: string;
  emailNormalized: string;
  subscriberId: string | null;
  campaignId: string | null;
  transactionalMessageId: string | null;
  /** The relay already refused it with a 5xx: that hard bounce was counted at sending. */
  refusedAtSending: boolean;
}

/** Campaign counter per kind: fixed identifiers, never input, so safe to splice. */
const CAMPAIGN_COUNTER: Record<FeedbackKind, Prisma.Sql> = {
  hard_bounce: Prisma.raw('bounce_count'),
  soft_bounce: Prisma.raw('soft_bounce_count'),
  complaint: Prisma.raw('complaint_count'),
  unsubscribe: Prisma.raw('unsubscribe_count'),
};

/** How far back a notification without Herald's Message-ID is matched by its recipient. */
const RECENT_DAYS = 7;

/**
 * The feedback ledger (`delivery_feedback`, written only here) and what it reads of the send
 * records to find the message a report is about. Like the send ledger, it moves the
 * campaign's counters in the same transaction as its own rows, so a counter never disagrees
 * with the ledger.
 */
@Injectable()
export class FeedbackRepository {
  constructor(private readonly prisma: PrismaService) {}

  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work);
  }

  /** Serialises reports about one message, so "the first of its kind" is decided once. */
  async lockMessage(tx: Db, key: string): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`feedback:${key}`}, 0))`;
  }

  /**
   * The message and its recipient, or null when Herald never sent it (a campaign row still
   * pending or skipped) or the recipient is gone: an erased subscriber, a scrubbed message.
   */
  async locate(tx: Db, ref: MessageRef): Promise<LocatedMessage | null> {
    if (ref.kind === 'campaign') {
      const [row] = await tx.$queryRaw<
        { account_id: string; subscriber_id: string; email_normalized: string; refused: boolean }[]
      >`
        SELECT r.account_id::text, s.id::text AS subscriber_id, s.email_normalized,
               (r.status = 'failed' AND coalesce(r.smtp_code, 0) >= 500) AS refused
          FROM campaign_recipients r
          JOIN subscribers s ON s.id = r.subscriber_id AND s.account_id = r.account_id
         WHERE r.campaign_id = ${ref.campaignId}::uuid AND r.subscriber_id = ${ref.subscriberId}::uuid
           AND r.status IN ('sending', 'sent', 'failed')`;
      if (!row) return null;
      return {
        accountId: row.account_id,
        emailNormalized: row.email_normalized,
        subscriberId: row.subscriber_id,
        campaignId: ref.campaignId,
        transactionalMessageId: null,
        refusedAtSending: row.refused,
      };
    }
    const [row] = await tx.$queryRaw<
      { account_id: string; to_address: string; subscriber_id: string | null }[]
    >`
      SELECT m.account_id::text, m.to_address, s.id::text AS subscriber_id
        FROM transactional_messages m
        LEFT JOIN subscribers s
          ON s.account_id = m.account_id AND s.email_normalized = lower(trim(m.to_address))
       WHERE m.id = ${ref.messageId}::uuid AND m.to_address IS NOT NULL
         AND m.status IN ('sending', 'sent', 'failed')`;
    if (!row) return null;
    return {
      accountId: row.account_id,
      emailNormalized: row.to_address.trim().toLowerCase(),
      subscriberId: row.subscriber_id,
      campaignId: null,
      transactionalMessageId: ref.messageId,
      // Its stored error is the relay's free text, not a code: such a refusal is rare
      // enough beside a later report that it is not told apart.
      refusedAtSending: false,
    };
  }

  /** Whether a report of this kind about the message was recorded before. */
  async seen(tx: Db, accountId: string, key: string, kind: FeedbackKind): Promise<boolean> {
    const [row] = await tx.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM delivery_feedback
                      WHERE account_id = ${accountId}::uuid AND message_key = ${key}
                        AND kind = ${kind}) AS found`;
    return row?.found ?? false;
  }

  /** Records the report; false when the same event (source and key) was recorded before. */
  async record(
    tx: Db,
    message: LocatedMessage,
    report: FeedbackReport,
    key: string,
  ): Promise<boolean> {
    const inserted = await tx.$executeRaw`
      INSERT INTO delivery_feedback
             (id, account_id, source, event_key, kind, message_key, campaign_id, subscriber_id,
              transactional_message_id, status_code)
      VALUES (${newId()}::uuid, ${message.accountId}::uuid, ${report.source}, ${report.eventKey},
              ${report.kind}, ${key}, ${message.campaignId}::uuid, ${message.subscriberId}::uuid,
              ${message.transactionalMessageId}::uuid, ${report.statusCode ?? null})
      ON CONFLICT (source, event_key) DO NOTHING`;
    return inserted === 1;
  }

  async countOnCampaign(
    tx: Db,
    accountId: string,
    campaignId: string,
    kind: FeedbackKind,
  ): Promise<void> {
    const column = CAMPAIGN_COUNTER[kind];
    await tx.$executeRaw`
      UPDATE campaigns SET ${column} = ${column} + 1
       WHERE account_id = ${accountId}::uuid AND id = ${campaignId}::uuid`;
  }

  /**
   * Every account id. Provider webhooks are installation-wide, so a notification that does
   * not carry Herald's Message-ID is matched across accounts: the one query that must be.
   */
  async accountIds(): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`SELECT id::text FROM accounts`;
    return rows.map((row) => row.id);
  }

  /**
   * The most recent message of the last RECENT_DAYS days to this address, among the given
   * accounts. Campaign mail is found through the subscriber (account, address) index;
   * transactional mail through the per-account erasure hash of its recipient, since its
   * address column is not indexed (and is scrubbed on erasure).
   */
  async latestTo(
    emailNormalized: string,
    accounts: { accountId: string; recipientHash: string }[],
  ): Promise<MessageRef | null> {
    if (accounts.length === 0) return null;
    const ids = accounts.map((a) => a.accountId);
    const hashes = accounts.map((a) => a.recipientHash);
    const [row] = await this.prisma.$queryRaw<
      { campaign_id: string | null; subscriber_id: string | null; message_id: string | null }[]
    >`
      SELECT * FROM (
        (SELECT r.campaign_id::text, r.subscriber_id::text, NULL::text AS message_id, r.sent_at
           FROM subscribers s
           JOIN campaign_recipients r ON r.account_id = s.account_id AND r.subscriber_id = s.id
          WHERE s.account_id = ANY(${ids}::uuid[]) AND s.email_normalized = ${emailNormalized}
            AND r.sent_at > now() - make_interval(days => ${RECENT_DAYS})
          ORDER BY r.sent_at DESC LIMIT 1)
        UNION ALL
        (SELECT NULL, NULL, m.id::text, m.sent_at
           FROM transactional_messages m
           JOIN unnest(${ids}::uuid[], ${hashes}::text[]) AS a(account_id, hash)
             ON m.account_id = a.account_id AND m.recipient_hash = a.hash
          WHERE m.sent_at > now() - make_interval(days => ${RECENT_DAYS})
          ORDER BY m.sent_at DESC LIMIT 1)
      ) recent ORDER BY sent_at DESC LIMIT 1`;
    if (!row) return null;
    if (row.message_id) return { kind: 'transactional', messageId: row.message_id };
    return { kind: 'campaign', campaignId: row.campaign_id!, subscriberId: row.subscriber_id! };
  }
}
