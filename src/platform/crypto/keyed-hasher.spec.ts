import { createHmac } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { KeyedHasher, normalizeEmail } from './keyed-hasher';

/** The rule without its shortcuts for plain ASCII: NFC always, IDNA always. */
function normalizedTheLongWay(email: string): string {
  const folded = email.trim().toLowerCase().normalize('NFC');
  const at = folded.lastIndexOf('@');
  if (at < 0) return folded;
  const domain = folded.slice(at + 1);
  return `${folded.slice(0, at)}@${domainToASCII(domain) || domain}`;
}

describe('normalizeEmail', () => {
  it('answers what NFC and IDNA answer, shortcuts or not', () => {
    let state = 7;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    const pieces = [
      'a',
      'Z',
      'x',
      '0',
      '1',
      '9',
      '0x',
      'xn--',
      'xn--bcher-kva',
      '-',
      '_',
      '.',
      '..',
      'e\u0301',
      '\u00fc',
      'ß',
      ' ',
      '%',
      '123',
      'com',
      'ff',
      '\u0130',
      '\uFF21',
      '\u3002',
    ];
    const emails = ['a@123', 'a@0x7f.1', 'a@a.0x10', 'a@b.09', 'a@b.c.', 'a@1.2.3.4', 'a@', '@b'];
    for (let round = 0; round < 20_000; round++) {
      let domain = '';
      for (let count = 1 + random(6); count > 0; count--) domain += pieces[random(pieces.length)];
      emails.push(`Local${random(3) === 0 ? '\u00c5' : ''}@${domain}`);
    }
    for (const email of emails)
      expect([email, normalizeEmail(email)]).toEqual([email, normalizedTheLongWay(email)]);
  });

  it('trims and lower-cases', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('folds a decomposed accent into its composed form', () => {
    const composed = 'jos\u00e9@example.com';
    const decomposed = 'jose\u0301@example.com';
    expect(decomposed).not.toBe(composed);
    expect(normalizeEmail(decomposed)).toBe(normalizeEmail(composed));
  });

  it('writes an internationalised domain as punycode, so both spellings are one identity', () => {
    expect(normalizeEmail('ada@B\u00fccher.example')).toBe('ada@xn--bcher-kva.example');
    expect(normalizeEmail('ada@xn--bcher-kva.example')).toBe('ada@xn--bcher-kva.example');
  });

  it('keeps a non-ASCII local part in NFC and leaves a name IDNA rejects as written', () => {
    expect(normalizeEmail('\u00c5sa@example.com')).toBe('\u00e5sa@example.com');
    expect(normalizeEmail('a@exa mple.com')).toBe('a@exa mple.com');
    expect(normalizeEmail('no-at-sign')).toBe('no-at-sign');
  });

  it('gives twins the same erasure hash', () => {
    const hasher = new KeyedHasher('s'.repeat(40));
    const hash = (email: string) => hasher.hash('erasure:acct', normalizeEmail(email));
    expect(hash('Jose\u0301@xn--bcher-kva.example')).toBe(hash('jos\u00e9@b\u00fccher.example'));
    expect(hash('other@example.com')).not.toBe(hash('jos\u00e9@b\u00fccher.example'));
  });
});

describe('KeyedHasher', () => {
  it('is HMAC-SHA256 of the purpose, a NUL and the value: hashes stored earlier keep matching', () => {
    const hasher = new KeyedHasher('herald-test-secret-0123456789abcdef');
    // Computed once with createHmac(secret).update(purpose).update('\0').update(value).
    expect(hasher.hash('api-key', 'hk_live_example')).toBe(
      'phN5LMOc4j8M9RXNo5PlqcAAx-YYLwaBhQ-cjDmuXkw',
    );
    expect(
      hasher.matches('api-key', 'hk_live_example', hasher.hash('api-key', 'hk_live_example')),
    ).toBe(true);
    expect(hasher.hash('erasure:a', 'b')).not.toBe(hasher.hash('erasure:', 'ab'));
  });

  it('reads a non-ASCII secret and value as UTF-8', () => {
    const secret = 'sécret-ü-🔑';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.from('purpose\0josé@bücher.example', 'utf8'))
      .digest('base64url');
    expect(new KeyedHasher(secret).hash('purpose', 'josé@bücher.example')).toBe(expected);
  });
});
