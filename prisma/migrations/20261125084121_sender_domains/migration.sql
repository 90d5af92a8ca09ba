-- CreateTable
CREATE TABLE "sender_domains" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "checks" JSONB NOT NULL DEFAULT '{}',
    "verified_at" TIMESTAMPTZ(3),
    "last_checked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sender_domains_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sender_domain_keys" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "domain_id" UUID NOT NULL,
    "selector" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "private_key_encrypted" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activated_at" TIMESTAMPTZ(3),
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "sender_domain_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sender_domains_account_id_id_idx" ON "sender_domains"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "sender_domains_account_id_name_key" ON "sender_domains"("account_id", "name");

-- CreateIndex
CREATE INDEX "sender_domain_keys_account_id_domain_id_idx" ON "sender_domain_keys"("account_id", "domain_id");

-- CreateIndex
CREATE UNIQUE INDEX "sender_domain_keys_domain_id_selector_key" ON "sender_domain_keys"("domain_id", "selector");

-- AddForeignKey
ALTER TABLE "sender_domains" ADD CONSTRAINT "sender_domains_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sender_domain_keys" ADD CONSTRAINT "sender_domain_keys_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "sender_domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;
