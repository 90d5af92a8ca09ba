import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { FeedbackReport } from '../message-refs/feedback-report';

// Every raw statement over delivery_feedback. Only FeedbackRepository runs them.

/** Serialises reports about one message. */
export const lockMessage = (key: string) =>
  Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${`feedback:${key}`}, 0))`;

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
