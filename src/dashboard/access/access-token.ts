import { randomBytes } from 'node:crypto';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';

/**
 * The secret in an invitation or password reset link: 32 random bytes, base64url (43
 * characters). Only its keyed hash is stored, under a purpose of its own, so a database
 * reader cannot open a link and one kind of token never passes for the other.
 */
export type TokenPurpose = 'invitation' | 'password-reset';

export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

export function accessTokenHash(hasher: KeyedHasher, purpose: TokenPurpose, token: string): string {
  return hasher.hash(`dashboard-${purpose}`, token);
}

/** Longer than any token Herald issues: not worth a hash and a lookup. */
export function plausibleToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

/** Where a link's state is decided: one place, so every answer agrees. */
export function linkState(
  row: { expiresAt: Date; revokedAt?: Date | null },
  usedAt: Date | null,
  now: Date,
): 'usable' | 'used' | 'revoked' | 'expired' {
  if (usedAt) return 'used';
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt <= now) return 'expired';
  return 'usable';
}
