import { Injectable } from '@nestjs/common';
import { newId, isUuid } from '../platform/crypto/ids';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountId } from '../platform/database/account-id';
import { ApiKeyCache } from './api-key-cache';
import { generateSecret, hashSecret, isLiveKey } from './api-key-secret';
import { ApiKeysRepository, KeyRow, KeyStatus, StoredKey } from './api-keys.repository';
import { isScope, Scope } from './scopes';

export type { KeyRow } from './api-keys.repository';

export class KeyCreationError extends Error {}

export interface CreatedKey {
  id: string;
  name: string;
  /** The full secret: shown once, never stored. */
  key: string;
  scopes: Scope[];
}

/** Issuing and withdrawing keys: used by the operator CLI and the dashboard, never by /v1. */
@Injectable()
export class ApiKeysService {
  /** Table reads in flight, by secret hash, with the cache generation each began in. */
  private readonly lookups = new Map<
    string,
    { generation: number; key: Promise<StoredKey | undefined> }
  >();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly accounts: AccountsService,
    private readonly hasher: KeyedHasher,
    private readonly cache: ApiKeyCache,
  ) {}

  /** A key of an account that exists (the CLI resolves the account it was given first). */
  async create(accountId: AccountId, name: string, scopes: string[]): Promise<CreatedKey> {
    const trimmedName = name.trim();
    if (!trimmedName || trimmedName.length > 100) {
      throw new KeyCreationError('A key needs a name of 1 to 100 characters.');
    }
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (scopes.length === 0 || unknown.length > 0) {
      throw new KeyCreationError(`Choose one or more valid scopes; unknown: ${unknown.join(', ')}`);
    }
    const validScopes = [...new Set(scopes)] as Scope[];
    const secret = generateSecret();
    const id = newId();
    await this.keys.create(accountId, {
      id,
      name: trimmedName,
      scopes: validScopes,
      secretHash: hashSecret(this.hasher, secret),
      lastFour: secret.slice(-4),
    });
    return { id, name: trimmedName, key: secret, scopes: validScopes };
  }

  /**
   * The account a key belongs to, found by the key's id alone: for the operator CLI, which
   * names keys by id and is trusted across accounts.
   */
  accountOfKeyAcrossAccounts(id: string): Promise<AccountId | undefined> {
    return isUuid(id) ? this.keys.accountOfKeyAcrossAccounts(id) : Promise.resolve(undefined);
  }

  /** Revokes or suspends one of the account's keys; false when it has no such key. */
  async setStatus(accountId: AccountId, id: string, status: KeyStatus): Promise<boolean> {
    const changed = isUuid(id) && (await this.keys.setStatus(accountId, id, status));
    // Other processes hear of it from PostgreSQL (ApiKeyChangeListener); this one need not
    // wait for that: the next request here already finds the key refused.
    if (changed) this.cache.forget(id);
    return changed;
  }

  /** The account's keys, newest first, without secrets. */
  list(accountId: AccountId): Promise<KeyRow[]> {
    return this.keys.list(accountId);
  }

  find(accountId: AccountId, id: string): Promise<KeyRow | null> {
    return isUuid(id) ? this.keys.find(accountId, id) : Promise.resolve(null);
  }

  /** Names of the account's keys by id, for naming actors in the audit log. */
  names(accountId: AccountId, ids: string[]) {
    return this.keys.names(accountId, ids);
  }

  /**
   * The key behind a bearer secret, if it is a live key that is active: from the cache of
   * keys this process verified lately (see ApiKeyCache for how a revocation reaches it), else
   * from the table.
   */
  async authenticate(secret: string): Promise<StoredKey | undefined> {
    if (!isLiveKey(secret)) return undefined;
    const secretHash = hashSecret(this.hasher, secret);
    const now = new Date();
    const key = this.cache.get(secretHash, now.getTime()) ?? (await this.lookUp(secretHash, now));
    if (!key) return undefined;
    await this.keys.touch(key, now);
    return key;
  }

  /**
   * Reads an active key from the table and caches it. Requests that miss the cache together (a
   * busy key whose entry has just expired, or the first burst after start-up) share one read
   * instead of each taking a connection, but only while no key has changed since that read
   * began: a request arriving after a change reads the table again.
   */
  private lookUp(secretHash: string, now: Date): Promise<StoredKey | undefined> {
    const generation = this.cache.generation();
    const pending = this.lookups.get(secretHash);
    if (pending?.generation === generation) return pending.key;
    const key = this.keys
      .findByHashAcrossAccounts(secretHash)
      .then((row) => {
        if (row?.status !== 'active') return undefined;
        this.cache.remember(secretHash, row, generation, now.getTime());
        return row;
      })
      .finally(() => {
        if (this.lookups.get(secretHash)?.key === key) this.lookups.delete(secretHash);
      });
    this.lookups.set(secretHash, { generation, key });
    return key;
  }
}
