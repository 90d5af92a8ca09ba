/**
 * The two cookies of the dashboard, and just enough of RFC 6265 to read and write them.
 * Both are httpOnly (page scripts never see them), SameSite=Lax (not sent on cross-site
 * POSTs), limited to /dashboard, and Secure whenever the dashboard is served over https.
 */
export const SESSION_COOKIE = 'herald_session';
/** A random nonce that binds the CSRF token of a visitor who has not signed in yet. */
export const VISITOR_COOKIE = 'herald_visitor';

const COOKIE_PATH = '/dashboard';

export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    // First one wins, as browsers send the most specific path first.
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; 0 deletes the cookie; undefined makes it last as long as the browser session. */
  maxAgeSeconds?: number;
}

/** Values are base64url tokens we generated, so they never need quoting or escaping. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearCookie(name: string, secure: boolean): string {
  return serializeCookie(name, '', { secure, maxAgeSeconds: 0 });
}
