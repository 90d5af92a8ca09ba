-- An automation's send step goes out through a hidden campaign of its own, so its messages are
-- found again by (campaign, subscriber) as a campaign's are: the unique index covers both sources.
DROP INDEX "messages_campaign_recipient_key";
CREATE UNIQUE INDEX "messages_campaign_recipient_key" ON "messages"("campaign_id", "subscriber_id") WHERE "source" IN ('campaign', 'automation');
