-- Stored file chunks are kept as they are, out of line but not compressed: pglz cost the
-- database more CPU on every upload and every import's read of it than the disk it saves on a
-- file that lives until its import ends (bench/import).
ALTER TABLE "stored_file_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;
