import { randomBytes } from 'node:crypto';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';

/**
 * API key secrets: `sk_live_` + 43 base64url characters, i.e. 32
 * random bytes, 51 characters in all. `sk_test_` is reserved for a future test mode and is
 * never issued. Only a keyed hash of the whole secret is stored.
 */
export const LIVE_PREFIX = 'sk_live_';
const LIVE_KEY = /^sk_live_[A-Za-z0-9_-]{43}$/;
const HASH_PURPOSE = 'api-key';

export function generateSecret(): string {
  return LIVE_PREFIX + randomBytes(32).toString('base64url');
}

/** True for a well-formed live key; test keys and anything else are never looked up. */
export function isLiveKey(secret: string): boolean {
  return LIVE_KEY.test(secret);
}

export function hashSecret(hasher: KeyedHasher, secret: string): string {
  return hasher.hash(HASH_PURPOSE, secret);
}

/** What the dashboard may show of a key after creation: the prefix and the last four. */
export function redact(lastFour: string): string {
  return `${LIVE_PREFIX}…${lastFour}`;
}
