import type { CookieSerializeOptions } from '@fastify/cookie';

/**
 * The two cookies of the dashboard. @fastify/cookie (registered in http-app.ts) parses the
 * Cookie header into `request.cookies` and writes them with `reply.setCookie`; this file only
 * says how they are shaped. Both are httpOnly (page scripts never see them), SameSite=Lax
 * (not sent on cross-site POSTs), limited to /dashboard, and Secure whenever the dashboard
 * is served over https.
 */
export const SESSION_COOKIE = 'herald_session';
/** A random nonce that binds the CSRF token of a visitor who has not signed in yet. */
export const VISITOR_COOKIE = 'herald_visitor';

const COOKIE_PATH = '/dashboard';

/**
 * `maxAgeSeconds` undefined makes the cookie last as long as the browser session. Values are
 * base64url tokens we generated, so the library's URI encoding leaves them unchanged.
 */
export function cookieOptions(secure: boolean, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
