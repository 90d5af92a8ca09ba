import { Injectable } from '@nestjs/common';
import { AuditEvent, Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

/** audit_events and its only writer: metadata only, identities as keyed hashes. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(
    accountId: AccountId,
    event: {
      id: string;
      action: string;
      apiKeyId?: string;
      subjectHash?: string;
      metadata: Prisma.InputJsonObject;
    },
    db: Db = this.prisma,
  ): Promise<void> {
    await db.auditEvent.create({ data: { ...event, accountId } });
  }

  /** Newest first, keyset on the time-ordered id over the (account_id, id) index. */
  listPage(accountId: AccountId, page: PageRequest): Promise<AuditEvent[]> {
    return this.prisma.auditEvent.findMany(keysetPage(accountId, page));
  }
}
