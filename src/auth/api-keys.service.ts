import { Injectable } from '@nestjs/common';
import { newId, isUuid } from '../platform/crypto/ids';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { AccountsRepository } from '../accounts/accounts.repository';
import { generateSecret, hashSecret, isLiveKey } from './api-key-secret';
import { ApiKeysRepository, KeyStatus, StoredKey } from './api-keys.repository';
import { isScope, Scope } from './scopes';

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
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly accounts: AccountsRepository,
    private readonly hasher: KeyedHasher,
  ) {}

  async create(accountId: string, name: string, scopes: string[]): Promise<CreatedKey> {
    if (!isUuid(accountId) || !(await this.accounts.exists(accountId))) {
      throw new KeyCreationError(`No account with id ${accountId}.`);
    }
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

  async setStatus(id: string, status: KeyStatus): Promise<boolean> {
    return isUuid(id) && this.keys.setStatus(id, status);
  }

  /** The key behind a bearer secret, if it is a live key that is active. */
  async authenticate(secret: string): Promise<StoredKey | undefined> {
    if (!isLiveKey(secret)) return undefined;
    const key = await this.keys.findByHash(hashSecret(this.hasher, secret));
    if (key?.status !== 'active') return undefined;
    await this.keys.touch(key, new Date());
    return key;
  }
}
