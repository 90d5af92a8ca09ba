-- CreateEnum
CREATE TYPE "paused_reason" AS ENUM ('complaint_rate', 'bounce_rate');

-- AlterEnum
ALTER TYPE "skip_reason" ADD VALUE 'other';

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "guard_since_bounces" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "guard_since_complaints" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "guard_since_delivered" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "paused_reason" "paused_reason",
ADD COLUMN     "skipped_other_count" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "campaign_delivery_runs" ADD COLUMN     "skipped_other" INTEGER NOT NULL DEFAULT 0;
