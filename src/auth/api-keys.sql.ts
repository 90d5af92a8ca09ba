import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';

// The raw statements over api_keys. Only ApiKeysRepository runs them.

/**
 * The authentication hot path (every /v1 request): one lookup on the unique secret_hash
 * index, straight through pg. Across accounts by nature: it is where a request's account
 * comes from. $1 secret hash.
 */
export const FIND_BY_SECRET_HASH = `
  SELECT id, account_id AS "accountId", scopes, status, last_used_at AS "lastUsedAt"
    FROM api_keys WHERE secret_hash = $1`;

export const touch = (accountId: AccountId, id: string, at: Date) => Prisma.sql`
  UPDATE api_keys SET last_used_at = ${at} WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;

/**
 * The channel api_keys' trigger (migration api_key_changes) notifies with a key's id when its
 * status, scopes, secret or account change or it is deleted: ApiKeyChangeListener drops the
 * key from every API process's cache.
 */
export const KEY_CHANGES_CHANNEL = 'api_key_changes';
