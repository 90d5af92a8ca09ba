-- CreateEnum
CREATE TYPE "webhook_delivery_status" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "daily_stats" (
    "account_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "delivered" INTEGER NOT NULL DEFAULT 0,
    "opens" INTEGER NOT NULL DEFAULT 0,
    "unique_opens" INTEGER NOT NULL DEFAULT 0,
    "machine_opens" INTEGER NOT NULL DEFAULT 0,
    "clicks" INTEGER NOT NULL DEFAULT 0,
    "unique_clicks" INTEGER NOT NULL DEFAULT 0,
    "machine_clicks" INTEGER NOT NULL DEFAULT 0,
    "hard_bounces" INTEGER NOT NULL DEFAULT 0,
    "soft_bounces" INTEGER NOT NULL DEFAULT 0,
    "complaints" INTEGER NOT NULL DEFAULT 0,
    "unsubscribes" INTEGER NOT NULL DEFAULT 0,
    "revenue_cents" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "daily_stats_pkey" PRIMARY KEY ("account_id","day")
);

-- CreateTable
CREATE TABLE "campaign_stats" (
    "campaign_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "opens" INTEGER NOT NULL DEFAULT 0,
    "clicks" INTEGER NOT NULL DEFAULT 0,
    "machine_opens" INTEGER NOT NULL DEFAULT 0,
    "machine_clicks" INTEGER NOT NULL DEFAULT 0,
    "conversions" INTEGER NOT NULL DEFAULT 0,
    "revenue_cents" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "campaign_stats_pkey" PRIMARY KEY ("campaign_id")
);

-- CreateTable
CREATE TABLE "campaign_links" (
    "campaign_id" UUID NOT NULL,
    "url_hash" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL DEFAULT 0,
    "unique_clicks" INTEGER NOT NULL DEFAULT 0,
    "machine_clicks" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_links_pkey" PRIMARY KEY ("campaign_id","url_hash")
);

-- CreateTable
CREATE TABLE "campaign_link_clickers" (
    "campaign_id" UUID NOT NULL,
    "url_hash" TEXT NOT NULL,
    "subscriber_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "first_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_link_clickers_pkey" PRIMARY KEY ("campaign_id","url_hash","subscriber_id")
);

-- CreateTable
CREATE TABLE "conversions" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "subscriber_id" UUID NOT NULL,
    "campaign_id" UUID,
    "amount_cents" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "description" TEXT,
    "secret_sealed" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT,
    "subscriber_id" UUID,
    "recipient_hash" TEXT,
    "status" "webhook_delivery_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "response_status" INTEGER,
    "latency_ms" INTEGER,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "campaign_stats_account_id_idx" ON "campaign_stats"("account_id");

-- CreateIndex
CREATE INDEX "campaign_link_clickers_account_id_subscriber_id_last_at_idx" ON "campaign_link_clickers"("account_id", "subscriber_id", "last_at");

-- CreateIndex
CREATE INDEX "conversions_account_id_id_idx" ON "conversions"("account_id", "id");

-- CreateIndex
CREATE INDEX "conversions_account_id_subscriber_id_idx" ON "conversions"("account_id", "subscriber_id");

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_id_idx" ON "webhook_endpoints"("account_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_next_attempt_at_idx" ON "webhook_deliveries"("next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_id_idx" ON "webhook_deliveries"("endpoint_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_subscriber_id_idx" ON "webhook_deliveries"("account_id", "subscriber_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_recipient_hash_idx" ON "webhook_deliveries"("account_id", "recipient_hash");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
