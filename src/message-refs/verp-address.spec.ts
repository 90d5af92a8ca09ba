import { loadConfig } from '../platform/config/config';
import { newId } from '../platform/crypto/ids';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { base32Decode, base32Encode } from './base32';
import { VerpAddresses } from './verp-address';

const SECRET = 'verp-spec-secret-0123456789-0123456789';

function addresses(secret = SECRET, bounceDomain = 'bounces.acme.test') {
  const config = loadConfig({
    HERALD_SECRET: secret,
    PUBLIC_URL: 'https://herald.acme.test',
    BOUNCE_DOMAIN: bounceDomain,
  });
  return new VerpAddresses(new KeyedHasher(secret), config);
}

describe('base32', () => {
  it('round-trips every length and matches RFC 4648 test vectors (lower case, no padding)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('mzxw6ytboi');
    expect(base32Encode(Buffer.from('f'))).toBe('my');
    for (let length = 0; length < 40; length++) {
      const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 37 + length) & 255));
      expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    }
  });

  it('decodes case-insensitively and refuses non-canonical or foreign text', () => {
    expect(base32Decode('MZXW6YTBOI')).toEqual(Buffer.from('foobar'));
    expect(base32Decode('mz')).toBeUndefined(); // leftover bits not zero
    expect(base32Decode('my1')).toBeUndefined();
  });
});

describe('VerpAddresses', () => {
  const verp = addresses();
  const campaign = { kind: 'campaign' as const, campaignId: newId(), subscriberId: newId() };
  const transactional = { kind: 'transactional' as const, messageId: newId() };

  it("puts the return path at a sender domain's bounce subdomain when it has one", () => {
    const dkim = { domainName: 'shop.test', keySelector: 's1', privateKey: 'unused' };
    const aligned = verp.returnPath(transactional, {
      dkim,
      returnPathDomain: 'herald-bounces.shop.test',
    });
    expect(aligned).toMatch(/^b-[a-z2-7]{36}@herald-bounces\.shop\.test$/);
    expect(verp.parse(aligned)).toEqual({ valid: true, purpose: 'bounce', ref: transactional });
    const fallback = verp.returnPath(transactional, { dkim, returnPathDomain: undefined });
    expect(fallback).toMatch(/@bounces\.acme\.test$/);
    // Another domain is not Herald's, token or not.
    const elsewhere = aligned.replace('herald-bounces.shop.test', 'shop.test');
    expect(verp.parse(elsewhere)).toEqual({ valid: false, problem: 'foreign' });
  });

  it('fits the 64-character local part and round-trips both kinds of message', () => {
    for (const ref of [campaign, transactional]) {
      for (const purpose of ['bounce', 'unsubscribe'] as const) {
        const address = verp.address(purpose, ref);
        const local = address.slice(0, address.indexOf('@'));
        expect(local.length).toBeLessThanOrEqual(64);
        expect(address).toMatch(/^[bu]-[a-z2-7]+@bounces\.acme\.test$/);
        expect(verp.parse(address)).toEqual({ valid: true, purpose, ref });
        expect(verp.parse(address.toUpperCase())).toEqual({ valid: true, purpose, ref });
      }
    }
  });

  it('refuses tokens that were altered, relabelled or made with another secret', () => {
    const address = verp.address('bounce', campaign);
    const flipped = address.replace(/^b-(.)/, (_, c: string) => `b-${c === 'a' ? 'b' : 'a'}`);
    expect(verp.parse(flipped)).toEqual({ valid: false, problem: 'forged' });
    // A bounce token is no unsubscribe token.
    expect(verp.parse(address.replace(/^b-/, 'u-'))).toEqual({ valid: false, problem: 'forged' });
    const other = addresses('another-secret-0123456789-0123456789');
    expect(other.parse(address)).toEqual({ valid: false, problem: 'forged' });
  });

  it('tells foreign domains and plain local parts apart from forgeries', () => {
    const address = verp.address('bounce', transactional);
    expect(verp.parse(address.replace('bounces.acme.test', 'evil.test'))).toEqual({
      valid: false,
      problem: 'foreign',
    });
    expect(verp.parse('postmaster@bounces.acme.test')).toEqual({ valid: false, problem: 'plain' });
    expect(verp.parse('b-abc@bounces.acme.test')).toEqual({ valid: false, problem: 'plain' });
  });

  it('finds token addresses in header text', () => {
    const bounce = verp.address('bounce', campaign);
    const unsubscribe = verp.address('unsubscribe', campaign);
    const headers = `Return-Path: <${bounce}>\r\nList-Unsubscribe: <https://x.test/u/1>, <mailto:${unsubscribe}?subject=unsubscribe>\r\n`;
    expect(verp.findIn(headers)).toEqual([bounce, unsubscribe]);
  });

  it('defaults BOUNCE_DOMAIN to the PUBLIC_URL host', () => {
    const config = loadConfig({ HERALD_SECRET: SECRET, PUBLIC_URL: 'https://Mail.Acme.test:8443' });
    expect(config.bounceDomain).toBe('mail.acme.test');
  });
});
