import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import { KEY_CACHE_MAX_ENTRIES, KEY_CACHE_TTL_MS } from './auth.settings';
import { ApiKeyCache } from './api-key-cache';
import { generateSecret } from './api-key-secret';
import { ApiKeysRepository, KeyStatus, StoredKey } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

const stored = (id: string, status: KeyStatus = 'active'): StoredKey => ({
  id,
  accountId: 'acct' as AccountId,
  scopes: ['subscribers:read'],
  status,
  lastUsedAt: new Date(),
});

describe('ApiKeyCache', () => {
  const t0 = 1_000_000;
  let cache: ApiKeyCache;
  beforeEach(() => {
    cache = new ApiKeyCache();
    cache.enable();
  });

  it('keeps an active key until its lifetime is over', () => {
    cache.remember('h1', stored('k1'), cache.generation(), t0);
    expect(cache.get('h1', t0 + KEY_CACHE_TTL_MS - 1)?.id).toBe('k1');
    expect(cache.get('h1', t0 + KEY_CACHE_TTL_MS)).toBeUndefined();
    expect(cache.get('h1', t0)).toBeUndefined();
  });

  it('never keeps a key that is not active', () => {
    cache.remember('h1', stored('k1', 'revoked'), cache.generation(), t0);
    cache.remember('h2', stored('k2', 'suspended'), cache.generation(), t0);
    expect(cache.get('h1', t0)).toBeUndefined();
    expect(cache.get('h2', t0)).toBeUndefined();
  });

  it('drops a key when told it changed, and only that key', () => {
    cache.remember('h1', stored('k1'), cache.generation(), t0);
    cache.remember('h2', stored('k2'), cache.generation(), t0);
    cache.forget('k1');
    expect(cache.get('h1', t0)).toBeUndefined();
    expect(cache.get('h2', t0)?.id).toBe('k2');
  });

  it('does not keep a row read before a change was heard', () => {
    const generation = cache.generation();
    // The lookup is in flight when the revocation is heard; it read the row before it.
    cache.forget('k1');
    cache.remember('h1', stored('k1'), generation, t0);
    expect(cache.get('h1', t0)).toBeUndefined();
  });

  it('keeps nothing and trusts nothing while changes cannot be heard', () => {
    cache.remember('h1', stored('k1'), cache.generation(), t0);
    cache.disable();
    expect(cache.get('h1', t0)).toBeUndefined();
    cache.remember('h1', stored('k1'), cache.generation(), t0);
    expect(cache.get('h1', t0)).toBeUndefined();
    // Back on: starts empty, since changes made meanwhile went unheard.
    const before = cache.generation();
    cache.enable();
    cache.remember('h1', stored('k1'), before, t0);
    expect(cache.get('h1', t0)).toBeUndefined();
  });

  it('holds at most KEY_CACHE_MAX_ENTRIES keys, dropping the oldest', () => {
    for (let i = 0; i <= KEY_CACHE_MAX_ENTRIES; i++) {
      cache.remember(`h${i}`, stored(`k${i}`), cache.generation(), t0);
    }
    expect(cache.get('h0', t0)).toBeUndefined();
    expect(cache.get('h1', t0)?.id).toBe('k1');
    expect(cache.get(`h${KEY_CACHE_MAX_ENTRIES}`, t0)?.id).toBe(`k${KEY_CACHE_MAX_ENTRIES}`);
  });
});

describe('ApiKeysService.authenticate with the cache', () => {
  const secret = generateSecret();

  function serviceWith(status: KeyStatus, cacheOn = true) {
    const row = stored('k1', status);
    const repository = {
      lookups: 0,
      touches: 0,
      findByHashAcrossAccounts(): Promise<StoredKey | undefined> {
        this.lookups++;
        return Promise.resolve({ ...row });
      },
      touch(key: StoredKey, now: Date): Promise<void> {
        if (now.getTime() - (key.lastUsedAt?.getTime() ?? 0) < 60_000) return Promise.resolve();
        this.touches++;
        key.lastUsedAt = now;
        return Promise.resolve();
      },
    };
    const cache = new ApiKeyCache();
    if (cacheOn) cache.enable();
    const service = new ApiKeysService(
      repository as unknown as ApiKeysRepository,
      {} as never,
      new KeyedHasher('x'.repeat(40)),
      cache,
    );
    return { service, repository, cache };
  }

  it('reads an active key from the table once, then from memory', async () => {
    const { service, repository } = serviceWith('active');
    for (let i = 0; i < 5; i++) expect((await service.authenticate(secret))?.id).toBe('k1');
    expect(repository.lookups).toBe(1);
  });

  it('reads the table on every request while the cache is off', async () => {
    const { service, repository } = serviceWith('active', false);
    for (let i = 0; i < 3; i++) await service.authenticate(secret);
    expect(repository.lookups).toBe(3);
  });

  it('refuses a revoked key on every request, reading the table each time', async () => {
    const { service, repository } = serviceWith('revoked');
    for (let i = 0; i < 3; i++) expect(await service.authenticate(secret)).toBeUndefined();
    expect(repository.lookups).toBe(3);
  });

  it('reads the key again once it changed', async () => {
    const { service, repository, cache } = serviceWith('active');
    await service.authenticate(secret);
    cache.forget('k1');
    await service.authenticate(secret);
    expect(repository.lookups).toBe(2);
  });

  it('shares one read among requests that miss the cache together', async () => {
    const { service, repository } = serviceWith('active');
    const keys = await Promise.all([1, 2, 3].map(() => service.authenticate(secret)));
    expect(keys.map((key) => key?.id)).toEqual(['k1', 'k1', 'k1']);
    expect(repository.lookups).toBe(1);
  });

  it('does not share a read that began before a key changed', async () => {
    const { service, repository, cache } = serviceWith('active');
    const first = service.authenticate(secret);
    cache.forget('k1');
    const second = service.authenticate(secret);
    await Promise.all([first, second]);
    expect(repository.lookups).toBe(2);
  });

  it('never looks up a malformed secret', async () => {
    const { service, repository } = serviceWith('active');
    expect(await service.authenticate('sk_test_nope')).toBeUndefined();
    expect(repository.lookups).toBe(0);
  });
});
