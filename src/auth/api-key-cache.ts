import { Injectable } from '@nestjs/common';
import { KEY_CACHE_MAX_ENTRIES, KEY_CACHE_TTL_MS } from './auth.settings';
import type { StoredKey } from './api-keys.repository';

interface Entry {
  key: StoredKey;
  until: number;
}

/**
 * Active API keys this process has verified, by secret hash, so that authenticating a request
 * does not cost a PostgreSQL round trip each time. Only active keys found in the table are
 * kept: a wrong or unknown key is looked up every time (and counted on its address's budget).
 *
 * An entry is dropped when its key changes (ApiKeyChangeListener hears PostgreSQL's
 * notification from the api_keys trigger; the revoking process also drops it at once), and
 * in any case KEY_CACHE_TTL_MS after it was read: the bound on how long a revoked key can
 * still be accepted if a notification was missed. The cache is only used while the listener
 * is connected; without it, nothing would tell us about a revocation, so every request reads
 * the table as if there were no cache.
 *
 * A lookup that started before a change was heard must not store what it read, which may
 * be the row from before the change: `generation` moves on every change, and `remember`
 * only stores a row read within the generation it was asked for in.
 */
@Injectable()
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private current = 0;
  private enabled = false;

  /** The verified key behind this secret hash, unless it is unknown here or too old. */
  get(secretHash: string, now = Date.now()): StoredKey | undefined {
    const entry = this.entries.get(secretHash);
    if (!entry) return undefined;
    if (entry.until > now) return entry.key;
    this.entries.delete(secretHash);
    return undefined;
  }

  /** Taken before reading a key from the table; handed back to `remember` with the row. */
  generation(): number {
    return this.current;
  }

  /** Keeps an active key read in `generation`, if nothing changed since and the cache is on. */
  remember(secretHash: string, key: StoredKey, generation: number, now = Date.now()): void {
    if (!this.enabled || generation !== this.current || key.status !== 'active') return;
    // Bounded: only real active keys get here, but an installation may have many. The oldest
    // entry goes first (a Map iterates in insertion order).
    if (this.entries.size >= KEY_CACHE_MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(secretHash, { key, until: now + KEY_CACHE_TTL_MS });
  }

  /** A key's status (or anything else about it) changed: read it from the table next time. */
  forget(keyId: string): void {
    this.current++;
    for (const [hash, entry] of this.entries) {
      if (entry.key.id === keyId) this.entries.delete(hash);
    }
  }

  /** The change listener is connected: changes from now on will be heard. */
  enable(): void {
    this.clear();
    this.enabled = true;
  }

  /** The change listener is gone: changes could go unheard, so nothing is trusted or kept. */
  disable(): void {
    this.enabled = false;
    this.clear();
  }

  private clear(): void {
    this.current++;
    this.entries.clear();
  }
}
