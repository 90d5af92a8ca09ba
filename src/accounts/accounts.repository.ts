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
}
