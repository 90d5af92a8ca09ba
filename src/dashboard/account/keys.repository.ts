import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../platform/database/prisma.service';

const KEY_FIELDS = {
  id: true,
  name: true,
  lastFour: true,
  scopes: true,
  status: true,
  createdAt: true,
  lastUsedAt: true,
} as const;

/** An account never holds more than this many keys worth listing on one page. */
const LIST_CAP = 500;

/** The dashboard's read side of api_keys; issuing and status changes go through ApiKeysService. */
@Injectable()
export class DashboardKeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(accountId: string) {
    return this.prisma.apiKey.findMany({
      where: { accountId },
      orderBy: { id: 'desc' },
      take: LIST_CAP,
      select: KEY_FIELDS,
    });
  }

  find(accountId: string, id: string) {
    return this.prisma.apiKey.findFirst({ where: { accountId, id }, select: KEY_FIELDS });
  }

  names(accountId: string, ids: string[]) {
    return this.prisma.apiKey.findMany({
      where: { accountId, id: { in: ids } },
      select: { id: true, name: true, lastFour: true },
    });
  }
}
