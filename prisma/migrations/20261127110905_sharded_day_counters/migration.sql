-- AlterTable
ALTER TABLE "daily_stats" DROP CONSTRAINT "daily_stats_pkey",
ADD COLUMN     "shard" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "daily_stats_pkey" PRIMARY KEY ("account_id", "day", "shard");
