import { Global, Injectable, Module } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { newId } from '../platform/crypto/ids';
import { PrismaService } from '../platform/database/prisma.service';

export interface AuditEntry {
  action: string;
  apiKeyId?: string;
  /** A keyed hash of the identity concerned: the audit log never holds plaintext. */
  subjectHash?: string;
  metadata?: Record<string, string | number | boolean>;
}

/** Metadata-only audit trail (SPEC §7.4). */
@Injectable()
export class AuditLog {
  constructor(private readonly prisma: PrismaService) {}

  async record(
    accountId: string,
    entry: AuditEntry,
    db: Prisma.TransactionClient = this.prisma,
  ): Promise<void> {
    await db.auditEvent.create({
      data: {
        id: newId(),
        accountId,
        action: entry.action,
        apiKeyId: entry.apiKeyId,
        subjectHash: entry.subjectHash,
        metadata: entry.metadata ?? {},
      },
    });
  }
}

@Global()
@Module({ providers: [AuditLog], exports: [AuditLog] })
export class AuditModule {}
