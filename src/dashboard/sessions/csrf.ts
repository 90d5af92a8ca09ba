import type { FastifyRequest } from 'fastify';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';

/**
 * CSRF defence for every state-changing dashboard request, in two independent layers:
 *
 * 1. A synchronizer token in the `X-CSRF-Token` header: an HMAC, under the master secret, of
 *    the session id (signed in) or of the visitor nonce cookie (signing in or up). Another
 *    site can make the browser send our cookies, but cannot read the token to put in the
 *    header. Derived, not stored, so it costs no table.
 * 2. The request's origin (Origin, else Referer, plus Sec-Fetch-Site) must be the dashboard's
 *    own: PUBLIC_URL or the Host the request came to.
 */
export const CSRF_HEADER = 'x-csrf-token';

export type CsrfBinding = { kind: 'session'; id: string } | { kind: 'visitor'; nonce: string };

export function csrfTokenFor(hasher: KeyedHasher, binding: CsrfBinding): string {
  const value = binding.kind === 'session' ? binding.id : binding.nonce;
  return hasher.hash(`dashboard-csrf:${binding.kind}`, value);
}

export function csrfTokenValid(
  hasher: KeyedHasher,
  binding: CsrfBinding | undefined,
  sent: string | undefined,
): boolean {
  if (!binding || !sent) return false;
  const value = binding.kind === 'session' ? binding.id : binding.nonce;
  return hasher.matches(`dashboard-csrf:${binding.kind}`, value, sent);
}

/** True when nothing the browser says marks the request as coming from another origin. */
export function sameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const claimed = header(request, 'origin') ?? originOf(header(request, 'referer'));
  // Browsers send Origin on every cross-origin POST; requests without one (curl, tests) still
  // need the token, which a browser on another site cannot obtain.
  if (claimed === undefined) return true;
  const allowed = new Set([originOf(publicUrl)]);
  const host = header(request, 'host');
  if (host) allowed.add(`${request.protocol}://${host}`);
  return allowed.has(claimed);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function originOf(url: string | undefined): string | undefined {
  if (!url || url === 'null') return url === 'null' ? 'null' : undefined;
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
