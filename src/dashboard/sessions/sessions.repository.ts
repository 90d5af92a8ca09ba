import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../platform/database/prisma.service';

export interface SessionWithUser {
  id: string;
  accountId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  user: { id: string; accountId: string; email: string; name: string | null; role: string };
  account: { name: string };
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(session: {
    id: string;
    userId: string;
    accountId: string;
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
    return { ...row, user, account };
  }

  async extend(id: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { id }, data: { lastSeenAt, expiresAt } });
  }

  async delete(id: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { id } });
  }

  /** Expired rows are useless; sign-ins sweep them so the table stays small. */
  async deleteExpired(now: Date): Promise<void> {
    await this.prisma.session.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
