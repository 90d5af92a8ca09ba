import { KeyedHasher, normalizeEmail } from './keyed-hasher';

describe('normalizeEmail', () => {
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
