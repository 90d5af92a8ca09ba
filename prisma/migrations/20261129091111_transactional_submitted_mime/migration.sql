-- AlterTable
ALTER TABLE "transactional_messages" ADD COLUMN     "mime" BYTEA;
