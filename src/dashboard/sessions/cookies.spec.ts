import fastifyCookie from '@fastify/cookie';
import Fastify from 'fastify';
import { cookieOptions } from './cookies';

/** A bare Fastify with the cookie plugin: what the dashboard's cookies look like on the wire. */
async function setCookieHeader(secure: boolean, maxAgeSeconds?: number, clear = false) {
  const app = Fastify();
  await app.register(fastifyCookie);
  app.get('/', (request, reply) => {
    if (clear) void reply.clearCookie('s', cookieOptions(secure));
    else void reply.setCookie('s', 'v', cookieOptions(secure, maxAgeSeconds));
    return { read: request.cookies };
  });
  // Over a real socket: Fastify's inject() loads an ESM-only package Jest cannot require.
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const response = await fetch(base, {
      headers: { cookie: 'a=1; herald_session=abc; b=; herald_session=later; junk' },
    });
    const [pair, ...attributes] = response.headers.getSetCookie()[0].split('; ');
    const { read } = (await response.json()) as { read: object };
    return { pair, attributes: attributes.sort(), read };
  } finally {
    await app.close();
  }
}

describe('dashboard cookies', () => {
  it('reads a Cookie header, first value winning', async () => {
    const { read } = await setCookieHeader(false);
    expect(read).toEqual({ a: '1', herald_session: 'abc', b: '' });
  });

  it('writes httpOnly, SameSite=Lax cookies under /dashboard, Secure on https', async () => {
    expect(await setCookieHeader(false, 60)).toMatchObject({
      pair: 's=v',
      attributes: ['HttpOnly', 'Max-Age=60', 'Path=/dashboard', 'SameSite=Lax'],
    });
    expect(await setCookieHeader(true)).toMatchObject({
      pair: 's=v',
      attributes: ['HttpOnly', 'Path=/dashboard', 'SameSite=Lax', 'Secure'],
    });
    const cleared = await setCookieHeader(true, undefined, true);
    expect(cleared.pair).toBe('s=');
    expect(cleared.attributes).toEqual(
      expect.arrayContaining(['Max-Age=0', 'Path=/dashboard', 'HttpOnly', 'Secure']),
    );
  });
});
