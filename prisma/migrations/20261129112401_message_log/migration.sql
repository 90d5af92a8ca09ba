-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "campaign_id" UUID,
    "subscriber_id" UUID,
    "automation_id" UUID,
    "automation_run_id" UUID,
    "recipient" TEXT,
    "recipient_hash" TEXT,
    "from_address" TEXT NOT NULL,
    "subject" TEXT,
    "header_message_id" TEXT,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "message_events" (
    "message_id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "smtp_code" INTEGER,
    "reason" TEXT,
    "url" TEXT,
    "machine" BOOLEAN,

    CONSTRAINT "message_events_pkey" PRIMARY KEY ("message_id","seq")
);

-- CreateIndex
CREATE INDEX "messages_account_id_created_at_id_idx" ON "messages"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "messages_account_id_recipient_hash_created_at_id_idx" ON "messages"("account_id", "recipient_hash", "created_at" DESC, "id" DESC);

-- A campaign's message is found by (campaign, subscriber): by later events (opens, clicks,
-- bounce reports) and by the outcome write of a message that was deferred before. Partial,
-- so messages of the other sources cost it nothing; the schema language cannot state it.
CREATE UNIQUE INDEX "messages_campaign_recipient_key" ON "messages"("campaign_id", "subscriber_id") WHERE "source" = 'campaign';
