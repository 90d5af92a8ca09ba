import type { FastifyRequest } from 'fastify';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import { csrfTokenFor, csrfTokenValid, sameOrigin } from './csrf';

const hasher = new KeyedHasher('a test secret of at least thirty-two characters');
const PUBLIC_URL = 'https://mail.example.com';

function requestWith(headers: Record<string, string>, protocol = 'http'): FastifyRequest {
  return { headers: { host: '127.0.0.1:3000', ...headers }, protocol } as unknown as FastifyRequest;
}

describe('CSRF tokens', () => {
  const session = { kind: 'session', id: '01a20000-0000-7000-8000-000000000001' } as const;
  const visitor = { kind: 'visitor', nonce: 'n'.repeat(43) } as const;

  it('accepts the token of the same binding only', () => {
    const token = csrfTokenFor(hasher, session);
    expect(csrfTokenValid(hasher, session, token)).toBe(true);
    expect(csrfTokenValid(hasher, { ...session, id: session.id.replace(/1$/, '2') }, token)).toBe(
      false,
    );
    expect(csrfTokenValid(hasher, undefined, token)).toBe(false);
    expect(csrfTokenValid(hasher, session, undefined)).toBe(false);
  });

  it('never lets a visitor token stand for a session token with the same value', () => {
    const sameValue = { kind: 'visitor', nonce: session.id } as const;
    expect(csrfTokenValid(hasher, session, csrfTokenFor(hasher, sameValue))).toBe(false);
    expect(csrfTokenValid(hasher, visitor, csrfTokenFor(hasher, visitor))).toBe(true);
  });
});

describe('sameOrigin', () => {
  it('allows requests without Origin or Referer (the token still has to match)', () => {
    expect(sameOrigin(requestWith({}), PUBLIC_URL)).toBe(true);
  });

  it('allows PUBLIC_URL and the Host the request came to', () => {
    expect(sameOrigin(requestWith({ origin: 'https://mail.example.com' }), PUBLIC_URL)).toBe(true);
    expect(sameOrigin(requestWith({ origin: 'http://127.0.0.1:3000' }), PUBLIC_URL)).toBe(true);
    expect(
      sameOrigin(requestWith({ referer: 'https://mail.example.com/dashboard/keys' }), PUBLIC_URL),
    ).toBe(true);
  });

  it('refuses other origins, opaque origins, garbage and cross-site fetches', () => {
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'http://mail.example.com' },
      { origin: 'null' },
      { origin: 'not a url' },
      { referer: 'https://evil.example/x' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      expect(sameOrigin(requestWith(headers), PUBLIC_URL)).toBe(false);
    }
  });
});
