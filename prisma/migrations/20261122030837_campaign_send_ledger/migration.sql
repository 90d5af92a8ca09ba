-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "bounce_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "click_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "delivered_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "failed_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "fanout_after_id" UUID,
ADD COLUMN     "fanout_batches" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "fanout_done_at" TIMESTAMPTZ(3),
ADD COLUMN     "open_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "progress_at" TIMESTAMPTZ(3),
ADD COLUMN     "recipient_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "skipped_bounced_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "skipped_erased_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "skipped_unsubscribed_count" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "campaign_recipients" (
    "campaign_id" UUID NOT NULL,
    "subscriber_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "batch" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "skip_reason" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "smtp_code" INTEGER,
    "claimed_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "opened_at" TIMESTAMPTZ(3),
    "clicked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_recipients_pkey" PRIMARY KEY ("campaign_id","subscriber_id")
);

-- CreateIndex
CREATE INDEX "campaign_recipients_campaign_id_batch_idx" ON "campaign_recipients"("campaign_id", "batch");

-- CreateIndex
CREATE INDEX "campaign_recipients_campaign_id_status_idx" ON "campaign_recipients"("campaign_id", "status");

-- CreateIndex
CREATE INDEX "campaign_recipients_account_id_subscriber_id_idx" ON "campaign_recipients"("account_id", "subscriber_id");

-- CreateIndex
CREATE INDEX "campaigns_status_progress_at_idx" ON "campaigns"("status", "progress_at");

-- AddForeignKey
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
