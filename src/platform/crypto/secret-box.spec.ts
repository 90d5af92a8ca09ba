import { SecretBox } from './secret-box';

const SECRET = 'a master secret of at least thirty-two characters';

describe('SecretBox', () => {
  const box = new SecretBox(SECRET, 'dkim-private-key');

  it('opens what it sealed, and never shows the plaintext in the sealed form', () => {
    const sealed = box.seal('-----BEGIN PRIVATE KEY-----\nMIIE…', 'row-1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(box.open(sealed, 'row-1')).toBe('-----BEGIN PRIVATE KEY-----\nMIIE…');
  });

  it('seals the same text differently every time (a fresh IV)', () => {
    expect(box.seal('same', 'row-1')).not.toBe(box.seal('same', 'row-1'));
  });

  it('refuses another context, another purpose, another master secret', () => {
    const sealed = box.seal('secret key', 'row-1');
    expect(() => box.open(sealed, 'row-2')).toThrow();
    expect(() => new SecretBox(SECRET, 'webhook-secret').open(sealed, 'row-1')).toThrow();
    expect(() => new SecretBox(`${SECRET}!`, 'dkim-private-key').open(sealed, 'row-1')).toThrow();
  });

  it('refuses an altered or malformed value', () => {
    const [version, iv, tag, body] = box.seal('secret key', 'row-1').split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() =>
      box.open([version, iv, tag, flipped.toString('base64url')].join('.'), 'row-1'),
    ).toThrow();
    expect(() => box.open([version, iv, tag.slice(2), body].join('.'), 'row-1')).toThrow();
    expect(() => box.open(`v2.${iv}.${tag}.${body}`, 'row-1')).toThrow();
    expect(() => box.open('not sealed', 'row-1')).toThrow();
  });
});
