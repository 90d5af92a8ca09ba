import { domainToASCII } from 'node:url';

const MAX_NAME = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A sender domain's name as Herald stores and compares it: lower-case ASCII (an IDN in its
 * xn-- form), no trailing dot, at least two labels of letters, digits and inner hyphens, and
 * not an IP address. Undefined when `raw` is not such a host name.
 */
export function normalizeDomainName(raw: string): string | undefined {
  if (raw.length > MAX_NAME + 1) return undefined;
  const trimmed = raw.trim().toLowerCase().replace(/\.$/, '');
  // domainToASCII turns IDNs into xn-- labels and returns '' for what no URL could hold.
  const ascii = /^[\x21-\x7e]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (ascii === '' || ascii.length > MAX_NAME) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  // A name whose last label is all digits is an IP address (or nothing real).
  if (/^\d+$/.test(labels[labels.length - 1])) return undefined;
  return ascii;
}

/**
 * The domain of a From header value (`addr@domain` or `Name <addr@domain>`), normalised like
 * a sender domain's name; undefined when it has none.
 */
export function senderDomainOf(from: string): string | undefined {
  const open = from.lastIndexOf('<');
  const close = from.indexOf('>', open);
  const address = open < 0 ? from : from.slice(open + 1, close < 0 ? undefined : close);
  const at = address.lastIndexOf('@');
  if (at < 0) return undefined;
  return normalizeDomainName(address.slice(at + 1));
}
