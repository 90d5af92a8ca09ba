import { Injectable } from '@nestjs/common';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';

/**
 * accounts and its only writer. These methods produce account ids rather than take them: an
 * account is created, or a candidate id is found to be one. (Rate-limit overrides are read
 * by the rate limiter, platform/rate-limit.)
 */
@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(
    id: string,
    name: string,
    db: Db = this.prisma,
  ): Promise<{ id: AccountId; name: string }> {
    const row = await db.account.create({ data: { id, name }, select: { id: true, name: true } });
    return { id: accountIdOfRow(row.id), name: row.name };
  }

  /**
   * Whether the installation has any account yet, inside the caller's transaction. A
   * transaction-scoped advisory lock makes concurrent first sign-ups take turns, so only one of
   * them can find the installation empty.
   */
  async anyExists(db: Db = this.prisma): Promise<boolean> {
    await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('herald:first-sign-up'))`;
    return (await db.account.findFirst({ select: { id: true } })) !== null;
  }

  /** The id, if an account has it. */
  async allIds(): Promise<AccountId[]> {
    const rows = await this.prisma.account.findMany({ select: { id: true } });
    return rows.map((row) => accountIdOfRow(row.id));
  }

  async find(candidate: string): Promise<AccountId | undefined> {
    const found = await this.prisma.account.findUnique({
      where: { id: candidate },
      select: { id: true },
    });
    return found ? accountIdOfRow(found.id) : undefined;
  }

  async name(accountId: AccountId): Promise<string> {
    const account = await this.prisma.account.findUniqueOrThrow({
      where: { id: accountId },
      select: { name: true },
    });
    return account.name;
  }

  /** The settings people see and edit, and the footer and subscription pages show. */
  settings(accountId: AccountId): Promise<{ name: string; postalAddress: string | null } | null> {
    return this.prisma.account.findUnique({
      where: { id: accountId },
      select: { name: true, postalAddress: true },
    });
  }

  async updatePostalAddress(accountId: AccountId, postalAddress: string | null): Promise<void> {
    await this.prisma.account.update({ where: { id: accountId }, data: { postalAddress } });
  }
}
