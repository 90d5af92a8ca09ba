import { Injectable } from '@nestjs/common';
import { AuditAction, AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { PrismaService } from '../platform/database/prisma.service';
import { ErasureGuard } from './erasure-guard';
import { ErasureRegistry } from './erasure-participant';

export interface ErasureReceipt {
  email_hash: string;
  erased_at: string;
}

/**
 * Erasure (CONTRACT §4): removes the subscriber and its personal data and keeps only a
 * keyed hash of the normalised email as a tombstone. Idempotent, and valid for an email
 * Herald never saw, so an erasure request can be honoured before the address arrives.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly guard: ErasureGuard,
    private readonly audit: AuditLog,
    private readonly registry: ErasureRegistry,
  ) {}

  /**
   * `action` names how the erasure was asked for in the audit log: by email (the default),
   * or from a subscriber's record.
   */
  async erase(
    caller: Principal,
    email: string,
    action: Extract<AuditAction, `identity.erased${string}`> = 'identity.erased',
  ): Promise<ErasureReceipt> {
    const { accountId } = caller;
    const emailNormalized = normalizeEmail(email);
    const emailHash = this.guard.emailHash(accountId, email);
    const tombstone = await this.prisma.$transaction(async (tx) => {
      await this.guard.lock(tx, accountId, [emailHash]);
      const existing = await tx.erasedIdentity.findUnique({
        where: { accountId_emailHash: { accountId, emailHash } },
      });
      if (existing) return existing;
      const subscriber = await tx.subscriber.findUnique({
        where: { accountId_emailNormalized: { accountId, emailNormalized } },
        select: { id: true },
      });
      const identity = { accountId, emailNormalized, emailHash, subscriberId: subscriber?.id };
      for (const participant of this.registry.all()) await participant.erase(tx, identity);
      if (subscriber) await tx.subscriber.delete({ where: { id: subscriber.id } });
      const created = await tx.erasedIdentity.create({
        data: { accountId, emailHash, subscriberId: subscriber?.id },
      });
      await this.audit.recordBy(caller, { action, subjectHash: emailHash }, tx);
      return created;
    });
    // Outside PostgreSQL (stored files, Redis): after commit, and again on every repeat call,
    // so a crash here is mended by retrying the erasure.
    const identity = { accountId, emailHash, subscriberId: tombstone.subscriberId ?? undefined };
    for (const participant of this.registry.all()) await participant.afterCommit?.(identity);
    return { email_hash: tombstone.emailHash, erased_at: tombstone.erasedAt.toISOString() };
  }

  /** The tombstone hash of an erased subscriber (its row is gone, the tombstone kept). */
  async erasedHashOf(accountId: string, subscriberId: string): Promise<string | undefined> {
    const found = await this.prisma.erasedIdentity.findFirst({
      where: { accountId, subscriberId },
      select: { emailHash: true },
    });
    return found?.emailHash;
  }
}
