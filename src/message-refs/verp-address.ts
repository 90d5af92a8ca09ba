import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { RETURN_PATH_LABEL } from '../domains/dns-records';
import { returnPathDomainFor, SenderIdentity } from '../domains/sender-identity';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { isUuid } from '../platform/crypto/ids';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { base32Decode, base32Encode } from './base32';
import type { MessageRef } from './message-ref';

/**
 * `b`: the envelope return path, where bounce reports (and some complaint reports) arrive.
 * `u`: the List-Unsubscribe mailbox, where mail means "unsubscribe me".
 */
export type VerpPurpose = 'bounce' | 'unsubscribe';

const PREFIX: Record<VerpPurpose, string> = { bounce: 'b', unsubscribe: 'u' };
const PURPOSE_OF = new Map<string, VerpPurpose>([
  ['b', 'bounce'],
  ['u', 'unsubscribe'],
]);

/**
 * 48 bits of HMAC. A forger must guess it through Herald's rate-limited SMTP port, for one
 * message at a time (2^47 tries on average); and it keeps a campaign token at 61 characters,
 * inside the 64 an address's local part may have (RFC 5321), with the 2-character prefix.
 */
const MAC_BYTES = 6;

export type ParsedAddress =
  | { valid: true; purpose: VerpPurpose; ref: MessageRef }
  /** `foreign`: not at a bounce domain of Herald's; `plain`: no token shape; `forged`: a token that fails. */
  | { valid: false; problem: 'foreign' | 'plain' | 'forged' };

/**
 * VERP addresses (`b-<token>@<return-path domain>`: BOUNCE_DOMAIN, or a verified sender
 * domain's bounce subdomain, whose MX points at BOUNCE_DOMAIN): the token is the message's ids packed as bytes
 * plus an HMAC under a key derived from HERALD_SECRET, labelled by purpose, all in base32. So
 * a report reaching one of these addresses names its message without trusting the report's
 * text, and nobody can make up an address that Herald would act on.
 */
@Injectable()
export class VerpAddresses {
  private readonly domain: string;

  constructor(
    private readonly hasher: KeyedHasher,
    @Inject(CONFIG) config: HeraldConfig,
  ) {
    this.domain = config.bounceDomain;
  }

  /** `domain`: where the address lives; BOUNCE_DOMAIN unless a sender domain has its own. */
  address(purpose: VerpPurpose, ref: MessageRef, domain: string = this.domain): string {
    const ids = ref.kind === 'campaign' ? [ref.campaignId, ref.subscriberId] : [ref.messageId];
    const payload = Buffer.concat(ids.map((id) => Buffer.from(id.replace(/-/g, ''), 'hex')));
    const token = base32Encode(Buffer.concat([payload, this.mac(purpose, payload)]));
    return `${PREFIX[purpose]}-${token}@${domain}`;
  }

  /**
   * The envelope sender of a message: its bounce address at the sender domain's own bounce
   * subdomain when that is published (SPF then aligns with the From), else at BOUNCE_DOMAIN.
   */
  returnPath(ref: MessageRef, sender: SenderIdentity | undefined): string {
    return this.address('bounce', ref, returnPathDomainFor(sender, this.domain));
  }

  /** What an address (as in RCPT TO or a Return-Path header) stands for. */
  parse(address: string): ParsedAddress {
    const at = address.lastIndexOf('@');
    if (at < 0 || !this.isBounceDomain(address.slice(at + 1).toLowerCase())) {
      return { valid: false, problem: 'foreign' };
    }
    const match = /^([bu])-([a-z2-7]{36}|[a-z2-7]{61})$/i.exec(address.slice(0, at));
    if (!match) return { valid: false, problem: 'plain' };
    const purpose = PURPOSE_OF.get(match[1].toLowerCase())!;
    const bytes = base32Decode(match[2]);
    if (!bytes || (bytes.length !== 16 + MAC_BYTES && bytes.length !== 32 + MAC_BYTES)) {
      return { valid: false, problem: 'forged' };
    }
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (!timingSafeEqual(this.mac(purpose, payload), bytes.subarray(payload.length))) {
      return { valid: false, problem: 'forged' };
    }
    const ids = [payload.subarray(0, 16), payload.subarray(16)]
      .filter((part) => part.length === 16)
      .map(uuidOf);
    if (!ids.every(isUuid)) return { valid: false, problem: 'forged' };
    const ref: MessageRef =
      ids.length === 2
        ? { kind: 'campaign', campaignId: ids[0], subscriberId: ids[1] }
        : { kind: 'transactional', messageId: ids[0] };
    return { valid: true, purpose, ref };
  }

  /**
   * BOUNCE_DOMAIN, or a sender domain's bounce subdomain: its MX points here, and a token's
   * MAC, not the domain, is what makes an address one Herald acts on.
   */
  private isBounceDomain(domain: string): boolean {
    return domain === this.domain || domain.startsWith(`${RETURN_PATH_LABEL}.`);
  }

  /** Every address at a bounce domain with a token shape found in a text (e.g. a header block). */
  findIn(text: string): string[] {
    const pattern = /\b[bu]-(?:[a-z2-7]{61}|[a-z2-7]{36})@[a-z0-9.-]{1,253}/gi;
    return [...text.matchAll(pattern)].map((found) => found[0]);
  }

  private mac(purpose: VerpPurpose, payload: Buffer): Buffer {
    const digest = this.hasher.hash(`verp-${purpose}`, payload.toString('hex'));
    return Buffer.from(digest, 'base64url').subarray(0, MAC_BYTES);
  }
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
