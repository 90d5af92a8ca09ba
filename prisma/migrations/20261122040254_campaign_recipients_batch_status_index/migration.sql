-- DropIndex
DROP INDEX "campaign_recipients_campaign_id_batch_idx";

-- CreateIndex
CREATE INDEX "campaign_recipients_campaign_id_batch_status_idx" ON "campaign_recipients"("campaign_id", "batch", "status");
