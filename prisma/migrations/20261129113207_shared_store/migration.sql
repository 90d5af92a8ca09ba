-- CreateTable
CREATE TABLE "store_marks" (
    "key" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "store_marks_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "store_counters" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "store_counters_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "store_token_buckets" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "at_ms" BIGINT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "store_token_buckets_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "store_marks_expires_at_idx" ON "store_marks"("expires_at");

-- CreateIndex
CREATE INDEX "store_token_buckets_expires_at_idx" ON "store_token_buckets"("expires_at");
