import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import { ACCOUNT_QUOTAS, lockQuota } from '../platform/database/account-quota';
import { claimDueForRecheck, lockDomain } from './sender-domains.sql';
import { Injectable } from '@nestjs/common';
import { Prisma, SenderDomain, SenderDomainKey } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../platform/pagination/page-request';
import { DomainStatus, RecordCheck } from './record-checks';

/** A domain with the keys that are still published: the signing one and a waiting rotation. */
export type DomainWithKeys = SenderDomain & { keys: SenderDomainKey[] };

export interface NewKey {
  id: string;
  selector: string;
  publicKey: string;
  privateKeyEncrypted: string;
}

export interface CheckOutcome {
  status: DomainStatus;
  checks: Record<string, RecordCheck>;
  verifiedAt: Date | null;
  checkedAt: Date;
  /** A pending key whose record was found: it becomes the signing key, the old one retires. */
  promoteKeyId?: string;
}

export type AddKeyOutcome = 'added' | 'not_found' | 'not_verified' | 'rotation_pending';

const LIVE_KEYS = {
  keys: { where: { status: { in: ['active', 'pending'] } }, orderBy: { id: 'asc' as const } },
};

/** The one writer of sender_domains and sender_domain_keys. */
@Injectable()
export class SenderDomainsRepository implements KeysetListing<DomainWithKeys> {
  readonly listName = 'domains';

  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: AccountId, page: PageRequest): Promise<DomainWithKeys[]> {
    return this.prisma.senderDomain.findMany({
      ...keysetPage(accountId, page),
      include: LIVE_KEYS,
    });
  }

  findById(accountId: AccountId, id: string): Promise<DomainWithKeys | null> {
    return this.prisma.senderDomain.findFirst({ where: { accountId, id }, include: LIVE_KEYS });
  }

  /** The verified domain of this name in this account, if any. */
  findVerified(accountId: AccountId, name: string): Promise<SenderDomain | null> {
    return this.prisma.senderDomain.findFirst({ where: { accountId, name, status: 'verified' } });
  }

  /** The key that signs this account's mail from `name`, with its domain; null when none. */
  findSigningKey(
    accountId: AccountId,
    name: string,
  ): Promise<(SenderDomainKey & { domain: SenderDomain }) | null> {
    return this.prisma.senderDomainKey.findFirst({
      where: { accountId, status: 'active', domain: { accountId, name } },
      include: { domain: true },
    });
  }

  /**
   * Null when the account already has a domain of this name (the unique index decides),
   * 'quota_exceeded' when it has its quota of domains.
   */
  async create(
    accountId: AccountId,
    domain: { id: string; name: string },
    key: NewKey,
  ): Promise<DomainWithKeys | null | 'quota_exceeded'> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        await lockQuota(tx, accountId, 'sender_domains');
        const held = await tx.senderDomain.count({ where: { accountId } });
        if (held >= ACCOUNT_QUOTAS.sender_domains) return 'quota_exceeded' as const;
        return tx.senderDomain.create({
          data: {
            id: domain.id,
            accountId,
            name: domain.name,
            keys: { create: { ...key, accountId, status: 'pending' } },
          },
          include: LIVE_KEYS,
        });
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        return null;
      }
      throw error;
    }
  }

  async delete(accountId: AccountId, id: string): Promise<boolean> {
    const { count } = await this.prisma.senderDomain.deleteMany({ where: { accountId, id } });
    return count > 0;
  }

  /**
   * Adds the next key of a rotation. Under the domain's row lock, so two concurrent rotations
   * cannot both add one: a domain waits for at most one new key at a time, and only a domain
   * that has a signing key can rotate it.
   */
  addRotationKey(accountId: AccountId, domainId: string, key: NewKey): Promise<AddKeyOutcome> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>(lockDomain(accountId, domainId));
      if (locked.length === 0) return 'not_found';
      const live = await tx.senderDomainKey.findMany({
        where: { accountId, domainId, status: { in: ['active', 'pending'] } },
        select: { status: true },
      });
      if (!live.some((row) => row.status === 'active')) return 'not_verified';
      if (live.some((row) => row.status === 'pending')) return 'rotation_pending';
      await tx.senderDomainKey.create({ data: { ...key, accountId, domainId, status: 'pending' } });
      return 'added';
    });
  }

  /**
   * Stores a check. Promoting a key and retiring the one it replaces happen in the same
   * transaction as the new status, under the domain's row lock: at every moment exactly one
   * key signs, and it is one whose record was found. False when the domain is gone.
   */
  saveCheck(accountId: AccountId, domainId: string, outcome: CheckOutcome): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>(lockDomain(accountId, domainId));
      if (locked.length === 0) return false;
      if (outcome.promoteKeyId) {
        const { count } = await tx.senderDomainKey.updateMany({
          where: { accountId, domainId, id: outcome.promoteKeyId, status: 'pending' },
          data: { status: 'active', activatedAt: outcome.checkedAt },
        });
        if (count > 0) {
          await tx.senderDomainKey.updateMany({
            where: { accountId, domainId, status: 'active', id: { not: outcome.promoteKeyId } },
            data: { status: 'retired', retiredAt: outcome.checkedAt },
          });
        }
      }
      await tx.senderDomain.updateMany({
        where: { accountId, id: domainId },
        data: {
          status: outcome.status,
          checks: outcome.checks as unknown as Prisma.InputJsonValue,
          verifiedAt: outcome.verifiedAt,
          lastCheckedAt: outcome.checkedAt,
        },
      });
      return true;
    });
  }

  /**
   * Claims the domains of every account that are due a re-check (see claimDueForRecheck in
   * sender-domains.sql): the re-check timer serves no one account.
   */
  async claimDueForRecheckAcrossAccounts(
    before: Date,
    limit: number,
  ): Promise<{ id: string; accountId: AccountId }[]> {
    const rows = await this.prisma.$queryRaw<{ id: string; account_id: string }[]>(
      claimDueForRecheck(before, limit),
    );
    return rows.map((row) => ({ id: row.id, accountId: accountIdOfRow(row.account_id) }));
  }
}
