import { Injectable } from '@nestjs/common';
import type { PersonRole } from '../../auth/principal';
import { AccountId, accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import { lockOwners } from './users.sql';

export interface UserRow {
  id: string;
  /** Read from the user's row: a signed-in person acts within this account. */
  accountId: AccountId;
  email: string;
  name: string | null;
  role: PersonRole;
  passwordHash: string;
}

const USER_FIELDS = {
  id: true,
  accountId: true,
  email: true,
  name: true,
  role: true,
  passwordHash: true,
} as const;

/**
 * users and its only writer. Sign-in finds people by email alone (emails are unique across
 * accounts), so those lookups are where a person's account comes from rather than go to.
 */
@Injectable()
export class UsersRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Sign-in looks people up by email alone: emails are unique across accounts. */
  async findByEmail(emailNormalized: string): Promise<UserRow | null> {
    const row = await this.prisma.user.findUnique({
      where: { emailNormalized },
      select: USER_FIELDS,
    });
    return row && asUserRow(row);
  }

  async emailTaken(emailNormalized: string): Promise<boolean> {
    const found = await this.prisma.user.findUnique({
      where: { emailNormalized },
      select: { id: true },
    });
    return found !== null;
  }

  /** `db` joins a transaction: a sign-up creates the account and its owner together. */
  async create(
    accountId: AccountId,
    user: {
      id: string;
      email: string;
      emailNormalized: string;
      name?: string;
      passwordHash: string;
      role?: PersonRole;
    },
    db: Db = this.prisma,
  ): Promise<UserRow> {
    return asUserRow(await db.user.create({ data: { ...user, accountId }, select: USER_FIELDS }));
  }

  async findById(accountId: AccountId, id: string, db: Db = this.prisma): Promise<UserRow | null> {
    const row = await db.user.findFirst({ where: { accountId, id }, select: USER_FIELDS });
    return row && asUserRow(row);
  }

  /** The account's people, oldest first (the dashboard's People page). */
  listMembers(accountId: AccountId) {
    return this.prisma.user.findMany({
      where: { accountId },
      orderBy: { createdAt: 'asc' },
      select: {
        id: true,
        email: true,
        name: true,
        role: true,
        createdAt: true,
        lastSignInAt: true,
      },
    });
  }

  /** `db` joins the transaction that spends the reset link, so both happen or neither. */
  async setPasswordHash(
    accountId: AccountId,
    id: string,
    passwordHash: string,
    db: Db = this.prisma,
  ): Promise<void> {
    await db.user.updateMany({ where: { accountId, id }, data: { passwordHash } });
  }

  async recordSignIn(accountId: AccountId, id: string, at: Date): Promise<void> {
    await this.prisma.user.updateMany({ where: { accountId, id }, data: { lastSignInAt: at } });
  }

  /** The account's owners' ids, their rows locked until `tx` ends (users.sql.ts). */
  async lockOwners(accountId: AccountId, tx: Db): Promise<string[]> {
    const rows = await tx.$queryRaw<{ id: string }[]>(lockOwners(accountId));
    return rows.map((row) => row.id);
  }

  async setRole(accountId: AccountId, id: string, role: PersonRole, db: Db): Promise<void> {
    await db.user.updateMany({ where: { accountId, id }, data: { role } });
  }

  /** Deletes the person; their sessions and reset links go with them (ON DELETE CASCADE). */
  async remove(accountId: AccountId, id: string, db: Db): Promise<boolean> {
    const { count } = await db.user.deleteMany({ where: { accountId, id } });
    return count > 0;
  }

  /** Team members of an account by id, for naming the people in the audit log. */
  listByIds(accountId: AccountId, ids: string[]) {
    return this.prisma.user.findMany({
      where: { accountId, id: { in: ids } },
      select: { id: true, email: true, name: true },
    });
  }
}

function asUserRow(row: Omit<UserRow, 'accountId'> & { accountId: string }): UserRow {
  return { ...row, accountId: accountIdOfRow(row.accountId) };
}
