-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "skip_reason" ADD VALUE 'complained';
ALTER TYPE "skip_reason" ADD VALUE 'suppressed';

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "postal_address" TEXT;

-- AlterTable
ALTER TABLE "subscribers" ADD COLUMN     "soft_bounce_streak" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "complaint_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "skipped_complained_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "skipped_suppressed_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "soft_bounce_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "unsubscribe_count" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "suppressions" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "email_normalized" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "suppressions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_feedback" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "event_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "message_key" TEXT NOT NULL,
    "campaign_id" UUID,
    "subscriber_id" UUID,
    "transactional_message_id" UUID,
    "status_code" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "delivery_feedback_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "suppressions_account_id_id_idx" ON "suppressions"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "suppressions_account_id_email_normalized_key" ON "suppressions"("account_id", "email_normalized");

-- CreateIndex
CREATE INDEX "delivery_feedback_account_id_message_key_kind_idx" ON "delivery_feedback"("account_id", "message_key", "kind");

-- CreateIndex
CREATE INDEX "delivery_feedback_account_id_id_idx" ON "delivery_feedback"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "delivery_feedback_source_event_key_key" ON "delivery_feedback"("source", "event_key");

-- AddForeignKey
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_feedback" ADD CONSTRAINT "delivery_feedback_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
