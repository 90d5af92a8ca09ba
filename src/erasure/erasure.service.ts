import { Injectable } from '@nestjs/common';
import { AuditAction, AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import { ErasedIdentitiesRepository } from './erased-identities.repository';
import { ErasureGuard } from './erasure-guard';
import { ErasureRegistry } from './erasure-participant';

/** Tombstones of subscribers erased since `since`, by the ids they had, in (afterId, throughId]. */
export interface ErasedRange {
  since: Date;
  afterId: string;
  /** No upper bound when null. */
  throughId: string | null;
}

export interface ErasureReceipt {
  email_hash: string;
  erased_at: string;
}

/**
 * Erasure: removes the subscriber and its personal data and keeps only a
 * keyed hash of the normalised email as a tombstone. Idempotent, and valid for an email
 * Herald never saw, so an erasure request can be honoured before the address arrives.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tombstones: ErasedIdentitiesRepository,
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
      await this.tombstones.lock(accountId, [emailHash], tx);
      const existing = await this.tombstones.find(accountId, emailHash, tx);
      if (existing) return existing;
      const subjects = this.registry.subjects();
      const subscriberId = await subjects.findSubscriberId(accountId, emailNormalized, tx);
      const identity = { accountId, emailNormalized, emailHash, subscriberId };
      for (const participant of this.registry.all()) await participant.erase(tx, identity);
      if (subscriberId) await subjects.deleteSubscriber(accountId, subscriberId, tx);
      const created = await this.tombstones.create(accountId, { emailHash, subscriberId }, tx);
      await this.audit.recordBy(caller, { action, subjectHash: emailHash }, tx);
      return created;
    });
    // Outside PostgreSQL (stored files, Redis): after commit, and again on every repeat call,
    // so a crash here is mended by retrying the erasure.
    const identity = { accountId, emailHash, subscriberId: tombstone.subscriberId ?? undefined };
    for (const participant of this.registry.all()) await participant.afterCommit?.(identity);
    return { email_hash: tombstone.emailHash, erased_at: tombstone.erasedAt.toISOString() };
  }

  /**
   * Whether the account erased anyone at or after `since`, inside the caller's pg
   * transaction (an export finishing: what it read before may include that person).
   */
  anyErasedSince(accountId: AccountId, since: Date, client: PgClient): Promise<boolean> {
    return this.tombstones.anyErasedSince(client, accountId, since);
  }

  /** The tombstone hash of an erased subscriber (its row is gone, the tombstone kept). */
  erasedHashOf(accountId: AccountId, subscriberId: string): Promise<string | undefined> {
    return this.tombstones.hashOfSubscriber(accountId, subscriberId);
  }

  /**
   * Ids of subscribers erased since a moment, within a keyset range of ids, inside the
   * caller's transaction (a fan-out counting who its audience lost to erasure).
   */
  erasedSubscriberIds(accountId: AccountId, range: ErasedRange, tx: Db): Promise<string[]> {
    return this.tombstones.subscriberIdsErasedSince(accountId, range.since, range, tx);
  }
}
