import { isIP } from 'node:net';
import { ConfigError } from './config-error';

/**
 * TRUST_PROXY: who may say, in X-Forwarded-For, which address a request came from. `false`
 * (unset, `0`): nobody, the client is the socket's peer. `1`: the peer is one reverse proxy,
 * whatever its address, and the client is the last address it appended. A list of addresses
 * and CIDRs: only peers (and hops) in it are proxies; the client is the first address from
 * the right that is none of them, so whatever a client writes into the header itself is never
 * believed. Fastify's own `true` would believe the leftmost address, which the client
 * chooses, so it is never used (see fastifyTrustProxy).
 */
export type TrustProxy = false | 1 | string[];

/**
 * As Fastify's `trustProxy` option takes it: `1` becomes "trust hop 0 (the socket's peer)
 * only", since Fastify refuses a bare hop count (it cannot tell a proxy from a client that
 * sent the header itself; here the operator says there is always one proxy in front).
 */
export function fastifyTrustProxy(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return trust === 1 ? (_address: string, hop: number) => hop === 0 : trust;
}

export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return 1;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const validPrefix =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !validPrefix || rest.length > 0) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be 1, or comma-separated proxy addresses or CIDRs (10.0.0.0/8, ::1), got "${entry.slice(0, 100)}"`,
      );
    }
  }
  return entries;
}
