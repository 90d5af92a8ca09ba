-- Why an automation is paused when the reputation guard paused it (with one of its step
-- campaigns); null for a pause by a person and for every other status.
-- AlterTable
ALTER TABLE "automations" ADD COLUMN     "paused_reason" "paused_reason";
