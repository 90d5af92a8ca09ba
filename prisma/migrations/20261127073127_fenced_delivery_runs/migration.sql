-- AlterEnum
ALTER TYPE "recipient_status" ADD VALUE 'deferred';

-- AlterTable
ALTER TABLE "campaign_recipients" ADD COLUMN     "claim_run" UUID,
ADD COLUMN     "deferred_since" TIMESTAMPTZ(3),
ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "campaign_delivery_runs" (
    "id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "batch" INTEGER NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,
    "delivered" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "hard_bounces" INTEGER NOT NULL DEFAULT 0,
    "soft_bounces" INTEGER NOT NULL DEFAULT 0,
    "skipped_erased" INTEGER NOT NULL DEFAULT 0,
    "skipped_unsubscribed" INTEGER NOT NULL DEFAULT 0,
    "skipped_bounced" INTEGER NOT NULL DEFAULT 0,
    "skipped_complained" INTEGER NOT NULL DEFAULT 0,
    "skipped_suppressed" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_delivery_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "campaign_delivery_runs_campaign_id_batch_idx" ON "campaign_delivery_runs"("campaign_id", "batch");

-- CreateIndex
CREATE INDEX "campaign_delivery_runs_lease_until_idx" ON "campaign_delivery_runs"("lease_until");

-- AddForeignKey
ALTER TABLE "campaign_delivery_runs" ADD CONSTRAINT "campaign_delivery_runs_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
