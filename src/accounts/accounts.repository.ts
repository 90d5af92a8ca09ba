import { Injectable } from '@nestjs/common';
import { PrismaService } from '../platform/database/prisma.service';

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(id: string, name: string) {
    return this.prisma.account.create({ data: { id, name }, select: { id: true, name: true } });
  }

  async exists(accountId: string): Promise<boolean> {
    const found = await this.prisma.account.findUnique({
      where: { id: accountId },
      select: { id: true },
    });
    return found !== null;
  }

  /** The settings people see and edit, and the footer and subscription pages show. */
  settings(accountId: string): Promise<{ name: string; postalAddress: string | null } | null> {
    return this.prisma.account.findUnique({
      where: { id: accountId },
      select: { name: true, postalAddress: true },
    });
  }

  async updatePostalAddress(accountId: string, postalAddress: string | null): Promise<void> {
    await this.prisma.account.update({ where: { id: accountId }, data: { postalAddress } });
  }
}
