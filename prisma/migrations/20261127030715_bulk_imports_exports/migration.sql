-- CreateEnum
CREATE TYPE "import_status" AS ENUM ('queued', 'running', 'done', 'failed');

-- CreateEnum
CREATE TYPE "import_mode" AS ENUM ('upsert', 'create');

-- CreateEnum
CREATE TYPE "export_status" AS ENUM ('queued', 'running', 'done', 'failed', 'expired');

-- CreateTable
CREATE TABLE "stored_files" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "stored_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stored_file_chunks" (
    "file_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "stored_file_chunks_pkey" PRIMARY KEY ("file_id","seq")
);

-- CreateTable
CREATE TABLE "subscriber_imports" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "user_id" UUID,
    "status" "import_status" NOT NULL DEFAULT 'queued',
    "mode" "import_mode" NOT NULL DEFAULT 'upsert',
    "columns" JSONB NOT NULL DEFAULT '[]',
    "file_id" UUID,
    "file_bytes" BIGINT NOT NULL DEFAULT 0,
    "rows_total" INTEGER,
    "rows_processed" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "skipped_erased" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "progress_at" TIMESTAMPTZ(3),

    CONSTRAINT "subscriber_imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscriber_import_errors" (
    "import_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "field" TEXT NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "subscriber_import_errors_pkey" PRIMARY KEY ("import_id","row","field")
);

-- CreateTable
CREATE TABLE "subscriber_exports" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "user_id" UUID,
    "segment_id" UUID,
    "status" "export_status" NOT NULL DEFAULT 'queued',
    "file_id" UUID,
    "rows" INTEGER NOT NULL DEFAULT 0,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "progress_at" TIMESTAMPTZ(3),

    CONSTRAINT "subscriber_exports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stored_files_account_id_id_idx" ON "stored_files"("account_id", "id");

-- CreateIndex
CREATE INDEX "stored_files_completed_at_created_at_idx" ON "stored_files"("completed_at", "created_at");

-- CreateIndex
CREATE INDEX "subscriber_imports_account_id_id_idx" ON "subscriber_imports"("account_id", "id");

-- CreateIndex
CREATE INDEX "subscriber_imports_status_progress_at_idx" ON "subscriber_imports"("status", "progress_at");

-- CreateIndex
CREATE INDEX "subscriber_exports_account_id_id_idx" ON "subscriber_exports"("account_id", "id");

-- CreateIndex
CREATE INDEX "subscriber_exports_status_progress_at_idx" ON "subscriber_exports"("status", "progress_at");

-- AddForeignKey
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stored_file_chunks" ADD CONSTRAINT "stored_file_chunks_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriber_imports" ADD CONSTRAINT "subscriber_imports_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriber_import_errors" ADD CONSTRAINT "subscriber_import_errors_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "subscriber_imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriber_exports" ADD CONSTRAINT "subscriber_exports_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
