-- Statuses become enums. Prisma's diff drops and re-adds each column, which would lose every
-- row's status; this converts them in place instead (the indexes on them are rebuilt by
-- PostgreSQL). Every value Herald ever wrote is a member of its enum.

-- CreateEnum
CREATE TYPE "api_key_status" AS ENUM ('active', 'revoked', 'suspended');

-- CreateEnum
CREATE TYPE "campaign_status" AS ENUM ('draft', 'sending', 'sent');

-- CreateEnum
CREATE TYPE "recipient_status" AS ENUM ('pending', 'sending', 'sent', 'failed', 'skipped');

-- CreateEnum
CREATE TYPE "skip_reason" AS ENUM ('erased', 'unsubscribed', 'bounced');

-- CreateEnum
CREATE TYPE "transactional_status" AS ENUM ('queued', 'sending', 'sent', 'failed');

-- CreateEnum
CREATE TYPE "idempotency_state" AS ENUM ('processing', 'completed');

-- AlterTable
ALTER TABLE "api_keys" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "api_key_status" USING "status"::"api_key_status",
ALTER COLUMN "status" SET DEFAULT 'active';

-- AlterTable
ALTER TABLE "campaigns" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "campaign_status" USING "status"::"campaign_status",
ALTER COLUMN "status" SET DEFAULT 'draft';

-- AlterTable
ALTER TABLE "campaign_recipients"
ALTER COLUMN "status" TYPE "recipient_status" USING "status"::"recipient_status",
ALTER COLUMN "skip_reason" TYPE "skip_reason" USING "skip_reason"::"skip_reason";

-- AlterTable
ALTER TABLE "transactional_messages" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "transactional_status" USING "status"::"transactional_status",
ALTER COLUMN "status" SET DEFAULT 'queued';

-- AlterTable
ALTER TABLE "idempotency_keys"
ALTER COLUMN "state" TYPE "idempotency_state" USING "state"::"idempotency_state";
