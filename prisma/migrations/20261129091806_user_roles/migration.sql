-- CreateEnum
CREATE TYPE "user_role" AS ENUM ('owner', 'admin', 'member');

-- AlterTable: converted in place (the generated DROP/ADD COLUMN would make every member an
-- owner); any value the enum does not know becomes the least privileged role.
ALTER TABLE "users" ALTER COLUMN "role" DROP DEFAULT;
ALTER TABLE "users" ALTER COLUMN "role" TYPE "user_role" USING (
  CASE WHEN "role" IN ('owner', 'admin', 'member') THEN "role" ELSE 'member' END
)::"user_role";
ALTER TABLE "users" ALTER COLUMN "role" SET DEFAULT 'owner';

-- AlterTable
ALTER TABLE "invitations" ALTER COLUMN "role" DROP DEFAULT;
ALTER TABLE "invitations" ALTER COLUMN "role" TYPE "user_role" USING (
  CASE WHEN "role" IN ('owner', 'admin', 'member') THEN "role" ELSE 'member' END
)::"user_role";
ALTER TABLE "invitations" ALTER COLUMN "role" SET DEFAULT 'member';
