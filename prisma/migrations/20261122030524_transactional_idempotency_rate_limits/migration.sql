-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "rate_limit" INTEGER,
ADD COLUMN     "send_rate_limit" INTEGER;

-- CreateTable
CREATE TABLE "transactional_messages" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "template_id" UUID,
    "recipient_hash" TEXT NOT NULL,
    "to_address" TEXT,
    "from_address" TEXT NOT NULL,
    "subject" TEXT,
    "html" TEXT,
    "text" TEXT,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "header_message_id" TEXT,
    "error" TEXT,
    "claimed_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "scrubbed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transactional_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "account_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "message_id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "locked_until" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("account_id","key")
);

-- CreateIndex
CREATE INDEX "transactional_messages_account_id_recipient_hash_idx" ON "transactional_messages"("account_id", "recipient_hash");

-- CreateIndex
CREATE INDEX "transactional_messages_status_updated_at_idx" ON "transactional_messages"("status", "updated_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE INDEX "idempotency_keys_account_id_message_id_idx" ON "idempotency_keys"("account_id", "message_id");

-- AddForeignKey
ALTER TABLE "transactional_messages" ADD CONSTRAINT "transactional_messages_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
