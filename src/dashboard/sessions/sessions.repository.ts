import { Injectable } from '@nestjs/common';
import { AccountId, accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import type { PersonRole } from '../../auth/principal';
import { PrismaService } from '../../platform/database/prisma.service';

export interface SessionWithUser {
  id: string;
  accountId: AccountId;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  /** The signed-in person; their accountId is what the session's requests are scoped to. */
  user: {
    id: string;
    accountId: AccountId;
    email: string;
    name: string | null;
    role: PersonRole;
  };
  account: { name: string };
}

/**
 * sessions and its only writer. A session is found by its token's keyed hash alone: that
 * lookup is where a signed-in request's account comes from.
 */
@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(session: {
    id: string;
    userId: string;
    accountId: AccountId;
    tokenHash: string;
    expiresAt: Date;
  }): Promise<void> {
    await this.prisma.session.create({ data: session });
  }

  async findByTokenHash(tokenHash: string): Promise<SessionWithUser | undefined> {
    const row = await this.prisma.session.findUnique({
      where: { tokenHash },
      select: {
        id: true,
        accountId: true,
        createdAt: true,
        lastSeenAt: true,
        expiresAt: true,
        user: {
          select: {
            id: true,
            accountId: true,
            email: true,
            name: true,
            role: true,
            account: { select: { name: true } },
          },
        },
      },
    });
    if (!row) return undefined;
    const { account, ...user } = row.user;
    return {
      ...row,
      accountId: accountIdOfRow(row.accountId),
      user: { ...user, accountId: accountIdOfRow(user.accountId) },
      account,
    };
  }

  async extend(id: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { id }, data: { lastSeenAt, expiresAt } });
  }

  async delete(id: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { id } });
  }

  /** Every session of one person; `db` joins the transaction that changed their password. */
  async deleteAllOf(accountId: AccountId, userId: string, db: Db = this.prisma): Promise<number> {
    return (await db.session.deleteMany({ where: { accountId, userId } })).count;
  }

  /** Expired rows are useless; sign-ins sweep them so the table stays small. */
  async deleteExpired(now: Date): Promise<void> {
    await this.prisma.session.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
