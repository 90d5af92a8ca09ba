import { createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import { domainToASCII } from 'node:url';

/**
 * HMAC-SHA256 under the master secret, with a purpose label so a hash made for one use
 * (API keys, erased emails, cursors) can never be replayed as another.
 */
export class KeyedHasher {
  /** Made once: from a string, every HMAC would encode the secret and wrap it anew. */
  private readonly key: KeyObject;

  constructor(secret: string) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  hash(purpose: string, value: string): string {
    return createHmac('sha256', this.key).update(`${purpose}\0${value}`).digest('base64url');
  }

  matches(purpose: string, value: string, expected: string): boolean {
    const actual = Buffer.from(this.hash(purpose, value));
    const wanted = Buffer.from(expected);
    return actual.length === wanted.length && timingSafeEqual(actual, wanted);
  }
}

/**
 * The one form in which Herald compares emails (uniqueness, erasure tombstones, suppression):
 * no surrounding blanks, lower case, Unicode NFC, and the domain in its ASCII (punycode) form.
 * Without NFC and IDNA, `josé@bücher.example` typed with a combining accent, or with the domain
 * as `xn--bcher-kva.example`, would be a second identity that slips past an erasure.
 */
export function normalizeEmail(email: string): string {
  const lowered = email.trim().toLowerCase();
  // Plain ASCII is its own NFC form: the check is much cheaper than normalizing.
  const folded = PRINTABLE_ASCII.test(lowered) ? lowered : lowered.normalize('NFC');
  const at = folded.lastIndexOf('@');
  if (at < 0) return folded;
  const domain = folded.slice(at + 1);
  if (isPlainDomain(domain)) return folded;
  // domainToASCII answers '' for a name IDNA rejects: such a domain is kept as written.
  return `${folded.slice(0, at)}@${domainToASCII(domain) || domain}`;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const PLAIN_DOMAIN = /^[a-z0-9._-]+$/;
/** A last label the URL host parser could read as an IPv4 number (`123`, `0x7f`), and rewrite. */
const NUMBER_LIKE_END = /(?:^|\.)0x[0-9a-f]*$|[^a-z]$/;

/**
 * A lower-case domain that domainToASCII would give back unchanged (or refuse, which keeps it
 * as written too): letters, digits, dots, hyphens and underscores, no punycode label, ending
 * in a letter and not in a hexadecimal number. Most addresses are like this, and IDNA costs a
 * native call each.
 */
function isPlainDomain(domain: string): boolean {
  return PLAIN_DOMAIN.test(domain) && !domain.includes('xn--') && !NUMBER_LIKE_END.test(domain);
}
