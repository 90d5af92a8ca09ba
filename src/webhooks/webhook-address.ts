import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';

/**
 * Addresses a webhook must never reach unless the operator allows it (WEBHOOK_ALLOW_PRIVATE):
 * loopback, private networks, link-local (cloud metadata services live there), carrier-grade
 * NAT, unspecified, multicast and reserved ranges, in IPv4 and IPv6 (IPv4-mapped IPv6 too).
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is one a webhook may not reach (without WEBHOOK_ALLOW_PRIVATE). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return BLOCKED.check(mapped, 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

/** A URL's host that resolves (now) to an address a webhook may not reach. */
export class PrivateAddressError extends Error {
  constructor(readonly address: string) {
    super(`the endpoint resolves to a private or reserved address (${address})`);
    this.name = 'PrivateAddressError';
  }
}

/**
 * dns.lookup for sockets that may only reach public addresses: every address the name
 * resolves to must be public, or the connection fails. Used as the `lookup` of each webhook
 * request, so the address checked is the address connected to (a name re-pointed between a
 * check and the connection cannot slip through).
 */
export function publicOnlyLookup(
  hostname: string,
  options: LookupOptions,
  callback: (
    error: NodeJS.ErrnoException | null,
    address: string | LookupAddress[],
    family?: number,
  ) => void,
): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses;
    const blocked = list.find((entry) => isPrivateAddress(entry.address));
    if (blocked) return callback(new PrivateAddressError(blocked.address), []);
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first)
      return callback(
        Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
        [],
      );
    callback(null, first.address, first.family);
  });
}

/** How long a save waits for DNS before accepting the URL unchecked (delivery checks again). */
const SAVE_LOOKUP_MS = 3_000;

/**
 * The first private address a URL's host resolves to now, if any. A literal IP is checked as
 * it is; a name that does not resolve (yet) passes: each delivery checks again as it connects.
 */
export async function privateAddressOf(hostname: string): Promise<string | undefined> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPrivateAddress(host) ? host : undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return '127.0.0.1';
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), SAVE_LOOKUP_MS);
    lookup(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found);
    });
  });
  return addresses.find((entry) => isPrivateAddress(entry.address))?.address;
}
