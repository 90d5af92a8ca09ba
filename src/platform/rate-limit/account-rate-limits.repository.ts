import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

/** An account's overrides of the global limits; null = use the global default. */
export interface AccountRateLimits {
  general: number | null;
  send: number | null;
}

const NO_OVERRIDES: AccountRateLimits = { general: null, send: null };

/** How long a process trusts what it read: a changed limit takes effect within this. */
const CACHE_TTL_MS = 30_000;

/**
 * Reads accounts.rate_limit / send_rate_limit for the limiter. They change rarely and are read
 * on every request, so each process keeps them for CACHE_TTL_MS instead of querying each time.
 */
@Injectable()
export class AccountRateLimitsRepository {
  private readonly cache = new Map<string, { limits: AccountRateLimits; until: number }>();

  constructor(private readonly prisma: PrismaService) {}

  async find(accountId: string, now = Date.now()): Promise<AccountRateLimits> {
    const cached = this.cache.get(accountId);
    if (cached && cached.until > now) return cached.limits;
    const row = await this.prisma.account.findUnique({
      where: { id: accountId },
      select: { rateLimit: true, sendRateLimit: true },
    });
    const limits = row ? { general: row.rateLimit, send: row.sendRateLimit } : NO_OVERRIDES;
    this.cache.set(accountId, { limits, until: now + CACHE_TTL_MS });
    return limits;
  }
}
