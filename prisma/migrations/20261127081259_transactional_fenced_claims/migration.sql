-- AlterTable
ALTER TABLE "transactional_messages" ADD COLUMN     "deferred_since" TIMESTAMPTZ(3),
ADD COLUMN     "lease_until" TIMESTAMPTZ(3),
ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3);

-- Claims taken before leases existed keep the 15 minutes they were given.
UPDATE "transactional_messages"
   SET "lease_until" = "claimed_at" + interval '15 minutes'
 WHERE "status" = 'sending';
