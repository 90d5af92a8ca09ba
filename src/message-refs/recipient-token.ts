import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { isUuid } from '../platform/crypto/ids';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { AccountId, parseAccountId } from '../platform/database/account-id';

/** Who a link in a campaign message belongs to. Ids only: a token never carries an address. */
export interface RecipientRef {
  /** Vouched for by the token's signature: Herald issued it for this account. */
  accountId: AccountId;
  subscriberId: string;
  campaignId?: string;
}

export type TokenPurpose = 'unsubscribe' | 'track';

const SIGNATURE_CHARS = 22; // 128 bits of the HMAC: plenty against forgery, short in a URL

/**
 * Signed, opaque recipient tokens for the links in campaign mail (unsubscribe, open pixel,
 * clicks): the ids packed as bytes, base64url, then an HMAC under the master secret with the
 * purpose as label, so a tracking token can never unsubscribe anyone.
 */
@Injectable()
export class RecipientTokens {
  constructor(private readonly hasher: KeyedHasher) {}

  issue(purpose: TokenPurpose, ref: RecipientRef): string {
    const ids = [ref.accountId, ref.subscriberId, ...(ref.campaignId ? [ref.campaignId] : [])];
    const payload = Buffer.concat(ids.map((id) => Buffer.from(id.replace(/-/g, ''), 'hex')));
    const encoded = payload.toString('base64url');
    return `${encoded}.${this.sign(purpose, encoded)}`;
  }

  /** The ids in a token, or null when it is malformed or its signature does not match. */
  verify(purpose: TokenPurpose, token: string): RecipientRef | null {
    const match = /^([A-Za-z0-9_-]{1,80})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!match) return null;
    const [, encoded, signature] = match;
    const expected = Buffer.from(this.sign(purpose, encoded));
    if (!timingSafeEqual(expected, Buffer.from(signature))) return null;
    const payload = Buffer.from(encoded, 'base64url');
    if (payload.length !== 32 && payload.length !== 48) return null;
    const ids: string[] = [];
    for (let offset = 0; offset < payload.length; offset += 16) {
      const hex = payload.subarray(offset, offset + 16).toString('hex');
      ids.push(
        `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      );
    }
    if (!ids.every(isUuid)) return null;
    const [account, subscriberId, campaignId] = ids;
    const accountId = parseAccountId(account);
    return campaignId ? { accountId, subscriberId, campaignId } : { accountId, subscriberId };
  }

  /** Signs an extra value bound to a token (a click's target URL), so links cannot be forged. */
  signValue(token: string, value: string): string {
    return this.hasher.hash('click-target', `${token}\0${value}`).slice(0, SIGNATURE_CHARS);
  }

  verifyValue(token: string, value: string, signature: string): boolean {
    const expected = Buffer.from(this.signValue(token, value));
    const actual = Buffer.from(signature);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private sign(purpose: TokenPurpose, encoded: string): string {
    return this.hasher.hash(purpose, encoded).slice(0, SIGNATURE_CHARS);
  }
}
