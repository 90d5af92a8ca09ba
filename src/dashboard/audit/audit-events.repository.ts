import { Injectable } from '@nestjs/common';
import { AuditEvent } from '../../generated/prisma/client';
import { PrismaService } from '../../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../../platform/pagination/page-request';

@Injectable()
export class AuditEventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, keyset on the time-ordered id over the (account_id, id) index. */
  listPage(accountId: string, page: PageRequest): Promise<AuditEvent[]> {
    return this.prisma.auditEvent.findMany(keysetPage(accountId, page));
  }
}
