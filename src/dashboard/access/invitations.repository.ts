import { Injectable } from '@nestjs/common';
import type { PersonRole } from '../../auth/principal';
import { Invitation } from '../../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';

export type InvitationRow = Omit<Invitation, 'accountId'> & { accountId: AccountId };

/** How many invitations the People page lists: the newest, pending or not. */
const LISTED = 100;

/**
 * invitations and its only writer. An invitation is found by its token's keyed hash alone
 * when someone opens the link: that lookup is where the joining person's account comes from.
 */
@Injectable()
export class InvitationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(
    accountId: AccountId,
    invitation: {
      id: string;
      email: string;
      emailNormalized: string;
      role: PersonRole;
      tokenHash: string;
      invitedBy: string;
      createdAt: Date;
      expiresAt: Date;
    },
    db: Db = this.prisma,
  ): Promise<InvitationRow> {
    return asRow(await db.invitation.create({ data: { ...invitation, accountId } }));
  }

  /** Pending invitations of one email in the account are replaced by a new one: one live link. */
  async revokePendingFor(
    accountId: AccountId,
    emailNormalized: string,
    at: Date,
    db: Db = this.prisma,
  ): Promise<void> {
    await db.invitation.updateMany({
      where: { accountId, emailNormalized, acceptedAt: null, revokedAt: null },
      data: { revokedAt: at },
    });
  }

  async list(accountId: AccountId): Promise<InvitationRow[]> {
    const rows = await this.prisma.invitation.findMany({
      where: { accountId },
      orderBy: { createdAt: 'desc' },
      take: LISTED,
    });
    return rows.map(asRow);
  }

  async find(accountId: AccountId, id: string): Promise<InvitationRow | null> {
    const row = await this.prisma.invitation.findFirst({ where: { accountId, id } });
    return row && asRow(row);
  }

  /** Only a still-open invitation is withdrawn; true when this call did it. */
  async revoke(accountId: AccountId, id: string, at: Date): Promise<boolean> {
    const { count } = await this.prisma.invitation.updateMany({
      where: { accountId, id, acceptedAt: null, revokedAt: null },
      data: { revokedAt: at },
    });
    return count === 1;
  }

  async findByTokenHash(tokenHash: string): Promise<InvitationRow | null> {
    const row = await this.prisma.invitation.findUnique({ where: { tokenHash } });
    return row && asRow(row);
  }

  /**
   * Spends the invitation: one conditional UPDATE, so of two people opening the same link at
   * once exactly one joins. False when it was used, withdrawn or expired in the meantime.
   */
  async accept(
    accountId: AccountId,
    id: string,
    userId: string,
    now: Date,
    db: Db,
  ): Promise<boolean> {
    const { count } = await db.invitation.updateMany({
      where: { accountId, id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now, acceptedUserId: userId },
    });
    return count === 1;
  }
}

function asRow(row: Invitation): InvitationRow {
  return { ...row, accountId: accountIdOfRow(row.accountId) };
}
