-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "campaign_status" ADD VALUE 'scheduled';
ALTER TYPE "campaign_status" ADD VALUE 'paused';
ALTER TYPE "campaign_status" ADD VALUE 'cancelled';

-- AlterEnum
ALTER TYPE "skip_reason" ADD VALUE 'cancelled';

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "cancelled_at" TIMESTAMPTZ(3),
ADD COLUMN     "cancelled_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "rate_per_minute" INTEGER,
ADD COLUMN     "send_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "campaigns_status_send_at_idx" ON "campaigns"("status", "send_at");
