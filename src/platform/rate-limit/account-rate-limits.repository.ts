import { Injectable } from '@nestjs/common';
import type { AccountId } from '../database/account-id';
import { PrismaService } from '../database/prisma.service';
import { ACCOUNT_LIMITS_CACHE_MS } from '../settings';

/** An account's overrides of the global limits; null = use the global default. */
export interface AccountRateLimits {
  general: number | null;
  send: number | null;
}

const NO_OVERRIDES: AccountRateLimits = { general: null, send: null };

/**
 * Reads accounts.rate_limit / send_rate_limit for the limiter (read-only: the accounts module
 * owns the table). They change rarely and are read on every request, so each process keeps
 * them for ACCOUNT_LIMITS_CACHE_MS instead of querying each time. Requests that find the entry
 * expired together (a busy account, every ACCOUNT_LIMITS_CACHE_MS) share one read.
 */
@Injectable()
export class AccountRateLimitsRepository {
  private readonly cache = new Map<string, { limits: AccountRateLimits; until: number }>();
  private readonly reads = new Map<string, Promise<AccountRateLimits>>();

  constructor(private readonly prisma: PrismaService) {}

  async find(accountId: AccountId, now = Date.now()): Promise<AccountRateLimits> {
    const cached = this.cache.get(accountId);
    if (cached && cached.until > now) return cached.limits;
    let read = this.reads.get(accountId);
    if (!read) {
      read = this.read(accountId, now).finally(() => this.reads.delete(accountId));
      this.reads.set(accountId, read);
    }
    return read;
  }

  private async read(accountId: AccountId, now: number): Promise<AccountRateLimits> {
    const row = await this.prisma.account.findUnique({
      where: { id: accountId },
      select: { rateLimit: true, sendRateLimit: true },
    });
    const limits = row ? { general: row.rateLimit, send: row.sendRateLimit } : NO_OVERRIDES;
    this.cache.set(accountId, { limits, until: now + ACCOUNT_LIMITS_CACHE_MS });
    return limits;
  }
}
