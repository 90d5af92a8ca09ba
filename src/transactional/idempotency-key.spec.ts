import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { InvalidRequestError } from '../platform/errors/api-errors';
import { canonicalJson, parseIdempotencyKey, payloadFingerprint } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it('accepts no key and keys of 1 to 255 characters', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('k')).toBe('k');
    expect(parseIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
  });

  it.each([[''], ['k'.repeat(256)], [['a', 'b']]])('refuses %j with 400', (raw) => {
    expect(() => parseIdempotencyKey(raw)).toThrow(InvalidRequestError);
  });
});

describe('payload fingerprints', () => {
  const hasher = new KeyedHasher('s'.repeat(40));
  const fingerprint = (payload: unknown) => payloadFingerprint(hasher, 'POST /x', payload);

  it('ignore member order at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"e":2,"f":1}]},"b":1}',
    );
    expect(fingerprint({ to: 'a@b.c', data: { x: 1, y: 2 } })).toBe(
      fingerprint({ data: { y: 2, x: 1 }, to: 'a@b.c' }),
    );
  });

  it('tell different payloads apart, array order included', () => {
    expect(fingerprint({ a: [1, 2] })).not.toBe(fingerprint({ a: [2, 1] }));
    expect(fingerprint({ a: '1' })).not.toBe(fingerprint({ a: 1 }));
  });

  it('keep a member named __proto__ as a member', () => {
    const payload = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown;
    expect(canonicalJson(payload)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('depend on the master secret, so they reveal nothing about the payload', () => {
    const other = new KeyedHasher('t'.repeat(40));
    expect(payloadFingerprint(other, 'POST /x', { a: 1 })).not.toBe(fingerprint({ a: 1 }));
  });
});
