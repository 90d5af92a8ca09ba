-- CreateEnum
CREATE TYPE "automation_status" AS ENUM ('draft', 'active', 'paused');

-- CreateEnum
CREATE TYPE "automation_reentry" AS ENUM ('never', 'after_exit', 'always');

-- CreateEnum
CREATE TYPE "automation_run_status" AS ENUM ('waiting', 'completed', 'exited', 'cancelled', 'failed');

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "automation_id" UUID;

-- CreateTable
CREATE TABLE "automations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" "automation_status" NOT NULL DEFAULT 'draft',
    "trigger" JSONB NOT NULL,
    "steps" JSONB NOT NULL,
    "reentry" "automation_reentry" NOT NULL DEFAULT 'never',
    "trigger_type" TEXT NOT NULL,
    "trigger_ref" TEXT,
    "created_cursor" TIMESTAMPTZ(3),
    "activated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "automations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "automation_runs" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "automation_id" UUID NOT NULL,
    "subscriber_id" UUID,
    "entry" INTEGER NOT NULL DEFAULT 0,
    "trigger_key" TEXT NOT NULL,
    "status" "automation_run_status" NOT NULL DEFAULT 'waiting',
    "current_step_id" TEXT,
    "in_wait" BOOLEAN NOT NULL DEFAULT false,
    "next_step_at" TIMESTAMPTZ(3),
    "exit_reason" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "automation_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "automation_run_steps" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "step_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "message_id" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "automation_run_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "automation_step_campaigns" (
    "automation_id" UUID NOT NULL,
    "step_id" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,

    CONSTRAINT "automation_step_campaigns_pkey" PRIMARY KEY ("automation_id","step_id","generation")
);

-- CreateTable
CREATE TABLE "automation_segment_members" (
    "automation_id" UUID NOT NULL,
    "subscriber_id" UUID NOT NULL,

    CONSTRAINT "automation_segment_members_pkey" PRIMARY KEY ("automation_id","subscriber_id")
);

-- CreateTable
CREATE TABLE "automation_events" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "subscriber_id" UUID,
    "properties" JSONB,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "automation_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "automations_account_id_id_idx" ON "automations"("account_id", "id");

-- CreateIndex
CREATE INDEX "automations_status_trigger_type_idx" ON "automations"("status", "trigger_type");

-- CreateIndex
CREATE INDEX "automation_runs_account_id_automation_id_id_idx" ON "automation_runs"("account_id", "automation_id", "id");

-- CreateIndex
CREATE INDEX "automation_runs_account_id_subscriber_id_idx" ON "automation_runs"("account_id", "subscriber_id");

-- CreateIndex
CREATE UNIQUE INDEX "automation_runs_automation_id_subscriber_id_trigger_key_key" ON "automation_runs"("automation_id", "subscriber_id", "trigger_key");

-- CreateIndex
CREATE INDEX "automation_run_steps_run_id_id_idx" ON "automation_run_steps"("run_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "automation_step_campaigns_campaign_id_key" ON "automation_step_campaigns"("campaign_id");

-- CreateIndex
CREATE INDEX "automation_events_account_id_subscriber_id_idx" ON "automation_events"("account_id", "subscriber_id");

-- AddForeignKey
ALTER TABLE "automations" ADD CONSTRAINT "automations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "automation_run_steps" ADD CONSTRAINT "automation_run_steps_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "automation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Due runs, found by the engine's claim: a partial index (the schema language cannot state
-- one) that holds only the runs still waiting, whatever the number of ended ones.
CREATE INDEX "automation_runs_due_idx" ON "automation_runs"("next_step_at") WHERE "status" = 'waiting';
