import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../platform/database/prisma.service';

export interface UserRow {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  role: string;
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

@Injectable()
export class UsersRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Sign-in looks people up by email alone: emails are unique across accounts. */
  findByEmail(emailNormalized: string): Promise<UserRow | null> {
    return this.prisma.user.findUnique({ where: { emailNormalized }, select: USER_FIELDS });
  }

  async emailTaken(emailNormalized: string): Promise<boolean> {
    const found = await this.prisma.user.findUnique({
      where: { emailNormalized },
      select: { id: true },
    });
    return found !== null;
  }

  create(
    accountId: string,
    user: {
      id: string;
      email: string;
      emailNormalized: string;
      name?: string;
      passwordHash: string;
    },
  ): Promise<UserRow> {
    return this.prisma.user.create({ data: { ...user, accountId }, select: USER_FIELDS });
  }

  /**
   * Sign-up: the account and its owner are created together, so a failed user insert (say,
   * the email was taken a moment ago) leaves no ownerless account behind.
   */
  createAccountWithOwner(
    account: { id: string; name: string },
    owner: {
      id: string;
      email: string;
      emailNormalized: string;
      name?: string;
      passwordHash: string;
    },
  ): Promise<UserRow> {
    return this.prisma.$transaction(async (tx) => {
      await tx.account.create({ data: account });
      return tx.user.create({
        data: { ...owner, accountId: account.id, role: 'owner' },
        select: USER_FIELDS,
      });
    });
  }

  async recordSignIn(accountId: string, id: string, at: Date): Promise<void> {
    await this.prisma.user.updateMany({ where: { accountId, id }, data: { lastSignInAt: at } });
  }

  async accountName(accountId: string): Promise<string> {
    const account = await this.prisma.account.findUniqueOrThrow({
      where: { id: accountId },
      select: { name: true },
    });
    return account.name;
  }

  /** Team members of an account by id, for naming the people in the audit log. */
  listByIds(accountId: string, ids: string[]) {
    return this.prisma.user.findMany({
      where: { accountId, id: { in: ids } },
      select: { id: true, email: true, name: true },
    });
  }
}
