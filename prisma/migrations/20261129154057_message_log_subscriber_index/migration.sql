-- An erasure finds the identity's messages by erasure hash or by subscriber id (an address
-- changed since). The hash half already walks (account_id, recipient_hash, …); without an index
-- on the subscriber half the OR made PostgreSQL read the whole table (2.7 s over a million
-- messages). With this one the two halves are a BitmapOr of two index scans.
-- CreateIndex
CREATE INDEX "messages_account_id_subscriber_id_idx" ON "messages"("account_id", "subscriber_id");
