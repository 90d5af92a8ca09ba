import { ExecutionContext } from '@nestjs/common';
import {
  InsufficientScopeError,
  InvalidCredentialError,
  RateLimitedError,
} from '../platform/errors/api-errors';
import { RateLimiter } from '../platform/rate-limit/rate-limiter.service';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { SCOPES } from './scopes';

const KEY = `sk_live_${'a'.repeat(43)}`;

/**
 * Counts what reaches each budget: a key's, and an address's for requests without a valid
 * key. Refuses a key once `allowed` of its requests have passed.
 */
class LimiterStub {
  counted = 0;
  countedForAddresses = 0;
  constructor(private readonly allowed = Infinity) {}
  enforce(): Promise<void> {
    this.counted += 1;
    return this.counted > this.allowed
      ? Promise.reject(new RateLimitedError(1))
      : Promise.resolve();
  }
  enforceForAddress(): Promise<void> {
    this.countedForAddresses += 1;
    return Promise.resolve();
  }
}

/** A stand-in for the key store: this spec is about the guard's decisions, not PostgreSQL. */
function guardWith(scopes: readonly string[], limiter = new LimiterStub()) {
  const keys = {
    authenticate: (secret: string) =>
      Promise.resolve(
        secret === KEY
          ? {
              id: 'key',
              accountId: 'acct',
              scopes: [...scopes],
              status: 'active',
              lastUsedAt: null,
            }
          : undefined,
      ),
  } as unknown as ApiKeysService;
  return new ApiKeyGuard(keys, limiter as unknown as RateLimiter);
}

function context(method: string, url: string, authorization?: string) {
  const request = { method, routeOptions: { url }, headers: { authorization } } as Record<
    string,
    unknown
  >;
  const ctx = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ header: () => {} }) }),
  } as unknown as ExecutionContext;
  return { ctx, request };
}

describe('ApiKeyGuard', () => {
  it('refuses a /v1 route missing from the scope table, even to a key with every scope', async () => {
    const { ctx } = context('GET', '/v1/not-in-the-table', `Bearer ${KEY}`);
    await expect(guardWith(SCOPES).canActivate(ctx)).rejects.toBeInstanceOf(InsufficientScopeError);
  });

  it('authenticates before it checks the scope', async () => {
    const { ctx } = context('GET', '/v1/not-in-the-table', 'Bearer nope');
    await expect(guardWith(SCOPES).canActivate(ctx)).rejects.toBeInstanceOf(InvalidCredentialError);
  });

  it('attaches the caller for a key with the route’s scope', async () => {
    const { ctx, request } = context('GET', '/v1/subscribers', `bearer ${KEY}`);
    await expect(guardWith(['subscribers:read']).canActivate(ctx)).resolves.toBe(true);
    expect(request.principal).toEqual({
      accountId: 'acct',
      apiKeyId: 'key',
      scopes: ['subscribers:read'],
    });
  });

  it('counts a bad key against the address, never against a key', async () => {
    const limiter = new LimiterStub();
    const guard = guardWith(['subscribers:read'], limiter);
    await expect(
      guard.canActivate(context('GET', '/v1/subscribers', 'Bearer nope').ctx),
    ).rejects.toBeInstanceOf(InvalidCredentialError);
    expect(limiter.countedForAddresses).toBe(1);
    expect(limiter.counted).toBe(0);
  });

  it('counts a good key’s requests against its budget, missing scope or not', async () => {
    const limiter = new LimiterStub(1);
    const guard = guardWith(['subscribers:read'], limiter);
    await expect(
      guard.canActivate(context('POST', '/v1/subscribers', `Bearer ${KEY}`).ctx),
    ).rejects.toBeInstanceOf(InsufficientScopeError);
    expect(limiter.counted).toBe(1);
    await expect(
      guard.canActivate(context('GET', '/v1/subscribers', `Bearer ${KEY}`).ctx),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(limiter.counted).toBe(2);
    expect(limiter.countedForAddresses).toBe(0);
  });

  it('leaves routes outside /v1 to their own authentication', async () => {
    const { ctx, request } = context('GET', '/health');
    await expect(guardWith([]).canActivate(ctx)).resolves.toBe(true);
    expect(request.principal).toBeUndefined();
  });
});
