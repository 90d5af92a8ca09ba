-- Claims and outcome writes look rows up by (campaign, batch) among the unfinished ones only.
-- A partial index stays as small as those rows, whatever the ledger holds of earlier
-- campaigns, and a finished row's update adds no entry to it. It replaces the two indexes
-- over (campaign, [batch,] status), which grew with every finished message and which the
-- planner, misled by statistics of other campaigns, walked from end to end.
CREATE INDEX "campaign_recipients_unfinished_idx" ON "campaign_recipients"("campaign_id", "batch")
  WHERE "status" IN ('pending', 'sending', 'deferred');

-- DropIndex
DROP INDEX "campaign_recipients_campaign_id_batch_status_idx";

-- DropIndex
DROP INDEX "campaign_recipients_campaign_id_status_idx";
