-- AlterTable
ALTER TABLE "campaign_recipients" ADD COLUMN     "fail_reason" TEXT;
