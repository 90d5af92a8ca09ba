import { Prisma } from '../../generated/prisma/client';

// Reads of campaign_recipients that find a message Herald sent, for reports about it
// (bounces, complaints) that arrive later. Only CampaignSentMessages runs them.

/** The recipient row of a message Herald sent, or tried to: not one still pending or skipped. */
export const sentRecipient = (campaignId: string, subscriberId: string) => Prisma.sql`
  SELECT account_id::text, (status = 'failed' AND coalesce(smtp_code, 0) >= 500) AS refused,
         sent_at
    FROM campaign_recipients
   WHERE campaign_id = ${campaignId}::uuid AND subscriber_id = ${subscriberId}::uuid
     AND status IN ('sending', 'sent', 'failed')`;

/** The latest message sent to any of these subscribers (account, id pairs) since `days` ago. */
export const latestSentTo = (accountIds: string[], subscriberIds: string[], days: number) =>
  Prisma.sql`
  SELECT r.campaign_id::text, r.subscriber_id::text, r.sent_at
    FROM campaign_recipients r
    JOIN unnest(${accountIds}::uuid[], ${subscriberIds}::uuid[]) AS s(account_id, id)
      ON r.account_id = s.account_id AND r.subscriber_id = s.id
   WHERE r.sent_at > now() - make_interval(days => ${days})
   ORDER BY r.sent_at DESC
   LIMIT 1`;
