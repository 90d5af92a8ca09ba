import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 under the master secret, with a purpose label so a hash made for one use
 * (API keys, erased emails, cursors) can never be replayed as another.
 */
export class KeyedHasher {
  constructor(private readonly secret: string) {}

  hash(purpose: string, value: string): string {
    return createHmac('sha256', this.secret)
      .update(purpose)
      .update('\0')
      .update(value)
      .digest('base64url');
  }

  matches(purpose: string, value: string, expected: string): boolean {
    const actual = Buffer.from(this.hash(purpose, value));
    const wanted = Buffer.from(expected);
    return actual.length === wanted.length && timingSafeEqual(actual, wanted);
  }
}

/** Emails compare case-insensitively and without surrounding blanks everywhere in Herald. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
