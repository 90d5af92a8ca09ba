import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { SharedStore } from '../platform/store/shared-store';
import { UnverifiedNotification } from './provider-event';

/**
 * How far a signature's timestamp may be from now, either way: long enough for a provider's
 * clock and its retries of one delivery, short enough that a captured request stops working.
 */
export const SIGNATURE_WINDOW_SECONDS = 15 * 60;

/**
 * The signed timestamp (Unix seconds) of a notification, refused when it is more than
 * SIGNATURE_WINDOW_SECONDS from now. Called only once the signature verifies, since only
 * then is the timestamp the provider's.
 */
export function withinWindow(provider: string, timestamp: string, now = Date.now()): number {
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (!(Math.abs(now / 1000 - seconds) <= SIGNATURE_WINDOW_SECONDS)) {
    throw new UnverifiedNotification(`${provider} signature timestamp outside the window`);
  }
  return seconds;
}

/**
 * Mailgun's tokens already seen, so a captured request cannot be replayed within the window.
 * Kept in Redis under the installation's key prefix, each until its timestamp leaves the
 * window (past that the timestamp check refuses it anyway): every API process shares the
 * memory, and it empties itself. SET NX decides the first use atomically, so two copies of
 * one request racing through two processes pass once.
 */
@Injectable()
export class MailgunTokens {
  constructor(private readonly store: SharedStore) {}

  /** Records the token; throws UnverifiedNotification when it was seen before. */
  async firstUse(token: string, timestampSeconds: number, now = Date.now()): Promise<void> {
    const ttlMs = Math.max(1_000, (timestampSeconds + SIGNATURE_WINDOW_SECONDS) * 1000 - now);
    // Hashed: the key's length does not depend on what the body holds.
    const key = `mailgun-token:${createHash('sha256').update(token).digest('base64url')}`;
    if (!(await this.store.markIfAbsent(key, ttlMs)))
      throw new UnverifiedNotification('Mailgun token seen before');
  }
}
