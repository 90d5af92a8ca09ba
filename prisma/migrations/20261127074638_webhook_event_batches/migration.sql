-- CreateTable
CREATE TABLE "webhook_event_batches" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "events" TEXT NOT NULL,
    "pending_ids" UUID[],
    "claimed_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_event_batches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_event_batches_account_id_idx" ON "webhook_event_batches"("account_id");
