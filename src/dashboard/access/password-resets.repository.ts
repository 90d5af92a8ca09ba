import { Injectable } from '@nestjs/common';
import { PasswordReset } from '../../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';

export type PasswordResetRow = Omit<PasswordReset, 'accountId'> & { accountId: AccountId };

/** password_resets and its only writer; a reset is found by its token's keyed hash alone. */
@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * A new link replaces the person's earlier unused ones (only the latest email works), and
   * rows past their hour are swept on the way, so the table holds live links only.
   */
  async replace(
    accountId: AccountId,
    reset: { id: string; userId: string; tokenHash: string; expiresAt: Date },
    now: Date,
  ): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.passwordReset.deleteMany({
        where: { OR: [{ accountId, userId: reset.userId }, { expiresAt: { lt: now } }] },
      }),
      this.prisma.passwordReset.create({ data: { ...reset, accountId } }),
    ]);
  }

  async findByTokenHash(tokenHash: string): Promise<PasswordResetRow | null> {
    const row = await this.prisma.passwordReset.findUnique({ where: { tokenHash } });
    return row && { ...row, accountId: accountIdOfRow(row.accountId) };
  }

  /** Spends the link in the transaction that sets the password: true for exactly one caller. */
  async use(accountId: AccountId, id: string, now: Date, db: Db): Promise<boolean> {
    const { count } = await db.passwordReset.updateMany({
      where: { accountId, id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    return count === 1;
  }
}
