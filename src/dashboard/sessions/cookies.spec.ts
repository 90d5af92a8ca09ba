import { clearCookie, readCookies, serializeCookie } from './cookies';

describe('dashboard cookies', () => {
  it('reads a Cookie header, first value winning', () => {
    const cookies = readCookies('a=1; herald_session=abc; b=; herald_session=later; junk');
    expect(cookies.get('herald_session')).toBe('abc');
    expect(cookies.get('a')).toBe('1');
    expect(cookies.get('b')).toBe('');
    expect(readCookies(undefined).size).toBe(0);
  });

  it('writes httpOnly, SameSite=Lax cookies under /dashboard, Secure on https', () => {
    expect(serializeCookie('s', 'v', { secure: false, maxAgeSeconds: 60 })).toBe(
      's=v; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=60',
    );
    expect(serializeCookie('s', 'v', { secure: true })).toBe(
      's=v; Path=/dashboard; HttpOnly; SameSite=Lax; Secure',
    );
    expect(clearCookie('s', true)).toBe(
      's=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0; Secure',
    );
  });
});
