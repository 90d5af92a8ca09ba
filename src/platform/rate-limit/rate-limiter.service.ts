import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { BurstyRateLimiter, RateLimiterRes, RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { HeraldConfig, RateLimitConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import type { AccountId } from '../database/account-id';
import { RateLimitedError } from '../errors/api-errors';
import { SharedStore } from '../store/shared-store';
import { AccountRateLimitsRepository } from './account-rate-limits.repository';
import { AddressLimitClass, LimitClass, limitClassOf } from './limit-class';

export interface RateLimitVerdict {
  allowed: boolean;
  /** Requests per window for this key and class. */
  limit: number;
  /** Left in the current window (the burst reserve is not counted). */
  remaining: number;
  /** Seconds until the current window resets. */
  resetSeconds: number;
}

interface Limiter {
  consume(key: string): Promise<RateLimiterRes>;
}

/** Who is counted: every API key has its own budget, whatever account it belongs to. */
export interface RateLimitSubject {
  accountId: AccountId;
  apiKeyId: string;
}

/**
 * Per-API-key rate limits kept in the shared store (rate-limiter-flexible on Redis or
 * PostgreSQL), so every API process shares one count. A fixed window of `limit` requests plus a burst reserve approximates a token
 * bucket (the library's BurstyRateLimiter). If the store fails, each process falls back to an
 * in-memory count of the same size (the library's insurance limiter) rather than failing
 * requests or letting them through unlimited.
 */
@Injectable()
export class RateLimiter {
  private readonly settings: RateLimitConfig;
  private readonly limiters = new Map<string, Limiter>();

  constructor(
    @Inject(CONFIG) config: HeraldConfig,
    private readonly store: SharedStore,
    private readonly accounts: AccountRateLimitsRepository,
  ) {
    this.settings = config.rateLimits;
  }

  /**
   * Counts one request of an authenticated key. Sets the RateLimit-* headers on the reply
   * and throws RateLimitedError (429, Retry-After) when over the limit.
   */
  async enforce(
    subject: RateLimitSubject,
    method: string,
    route: string,
    reply: FastifyReply,
  ): Promise<void> {
    const limitClass = limitClassOf(method, route);
    answer(reply, await this.consume(subject.apiKeyId, limitClass, subject.accountId));
  }

  /**
   * Counts one request of a signed-in dashboard user: each person has a general budget of
   * their own (the account's override applies), as each API key does.
   */
  async enforceForUser(accountId: AccountId, userId: string, reply: FastifyReply): Promise<void> {
    answer(reply, await this.consume(`user:${userId}`, 'general', accountId));
  }

  /**
   * Counts one request nobody is signed in for (sign-in and sign-up, public pages, mail
   * infrastructure's calls), by the client's address, before any of its work is done.
   */
  async enforceForAddress(
    address: string,
    reply: FastifyReply,
    limitClass: AddressLimitClass = 'anonymous',
  ): Promise<void> {
    answer(reply, await this.consume(`ip:${address}`, limitClass));
  }

  async consume(
    counterKey: string,
    limitClass: LimitClass,
    accountId?: AccountId,
  ): Promise<RateLimitVerdict> {
    // Accounts may override their keys' and people's budgets; an address has no account.
    const override =
      accountId && (limitClass === 'general' || limitClass === 'send')
        ? (await this.accounts.find(accountId))[limitClass]
        : undefined;
    const limit = override ?? this.settings[limitClass];
    const limiter = this.limiterFor(limitClass, limit);
    try {
      return verdict(true, limit, await limiter.consume(counterKey));
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return verdict(false, limit, rejection);
      throw rejection;
    }
  }

  /** One limiter per class and size, made on first use; counters are shared by key. */
  private limiterFor(limitClass: LimitClass, limit: number): Limiter {
    const id = `${limitClass}:${limit}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.build(limitClass, limit);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private build(limitClass: LimitClass, limit: number): Limiter {
    const { windowSeconds, burstFactor, burstWindowSeconds } = this.settings;
    const window = this.counter(`rl:${limitClass}`, limit, windowSeconds);
    if (burstFactor === 0) return window;
    const reserve = this.counter(`rl:${limitClass}:burst`, limit * burstFactor, burstWindowSeconds);
    return new BurstyRateLimiter(window, reserve);
  }

  private counter(keyPrefix: string, points: number, duration: number): RateLimiterStoreAbstract {
    return this.store.counter({ keyPrefix, points, duration, insured: true });
  }
}

function answer(reply: FastifyReply, verdict: RateLimitVerdict): void {
  void reply.headers({
    'RateLimit-Limit': String(verdict.limit),
    'RateLimit-Remaining': String(verdict.remaining),
    'RateLimit-Reset': String(verdict.resetSeconds),
  });
  if (!verdict.allowed) throw new RateLimitedError(Math.max(1, verdict.resetSeconds));
}

function verdict(allowed: boolean, limit: number, res: RateLimiterRes): RateLimitVerdict {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.ceil(Math.max(0, res.msBeforeNext) / 1000),
  };
}
