import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { FeedbackReport } from './feedback-report';

// Every raw statement of the feedback loop. FeedbackRepository runs them: its own table,
// delivery_feedback, and the reads of the send records that find a report's message.

/** How far back a notification without Herald's Message-ID is matched by its recipient. */
const RECENT_DAYS = 7;

/** Serialises reports about one message. */
export const lockMessage = (key: string) =>
  Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${`feedback:${key}`}, 0))`;

/** A campaign message Herald sent (or tried to), with its recipient. */
export const campaignMessage = (campaignId: string, subscriberId: string) => Prisma.sql`
  SELECT r.account_id::text, s.id::text AS subscriber_id, s.email_normalized,
         (r.status = 'failed' AND coalesce(r.smtp_code, 0) >= 500) AS refused
    FROM campaign_recipients r
    JOIN subscribers s ON s.id = r.subscriber_id AND s.account_id = r.account_id
   WHERE r.campaign_id = ${campaignId}::uuid AND r.subscriber_id = ${subscriberId}::uuid
     AND r.status IN ('sending', 'sent', 'failed')`;

/** A transactional message Herald sent (or tried to), not scrubbed, and its subscriber if any. */
export const transactionalMessage = (messageId: string) => Prisma.sql`
  SELECT m.account_id::text, m.to_address, s.id::text AS subscriber_id
    FROM transactional_messages m
    LEFT JOIN subscribers s
      ON s.account_id = m.account_id AND s.email_normalized = lower(trim(m.to_address))
   WHERE m.id = ${messageId}::uuid AND m.to_address IS NOT NULL
     AND m.status IN ('sending', 'sent', 'failed')`;

/** Whether a report of this kind about the message was recorded before. */
export const seen = (accountId: AccountId, key: string, kind: FeedbackReport['kind']) =>
  Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM delivery_feedback
                    WHERE account_id = ${accountId}::uuid AND message_key = ${key}
                      AND kind = ${kind}) AS found`;

/** What `record` writes of the message a report is about. */
export interface RecordedMessage {
  accountId: AccountId;
  campaignId: string | null;
  subscriberId: string | null;
  transactionalMessageId: string | null;
}

/** Records a report; a repeated event (source and key) inserts nothing. */
export const record = (
  id: string,
  message: RecordedMessage,
  report: FeedbackReport,
  key: string,
) => Prisma.sql`
  INSERT INTO delivery_feedback
         (id, account_id, source, event_key, kind, message_key, campaign_id, subscriber_id,
          transactional_message_id, status_code)
  VALUES (${id}::uuid, ${message.accountId}::uuid, ${report.source}, ${report.eventKey},
          ${report.kind}, ${key}, ${message.campaignId}::uuid, ${message.subscriberId}::uuid,
          ${message.transactionalMessageId}::uuid, ${report.statusCode ?? null})
  ON CONFLICT (source, event_key) DO NOTHING`;

export const ACCOUNT_IDS = Prisma.sql`SELECT id::text FROM accounts`;

/**
 * The most recent message of the last RECENT_DAYS days to this address, among the accounts
 * (ids, with the address's erasure hash in each). Campaign mail through the subscriber
 * (account, address) index; transactional mail through the recipient hash.
 */
export const latestTo = (emailNormalized: string, ids: AccountId[], hashes: string[]) => Prisma.sql`
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
