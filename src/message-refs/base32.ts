/**
 * RFC 4648 base32 in lower case without padding: the encoding of VERP tokens, because the
 * local part of an address may be lower-cased on its way back, and base32 survives that.
 */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const VALUES = new Map([...ALPHABET].map((char, index) => [char, index]));

export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The bytes of a canonical encoding; undefined for anything else (case-insensitive). */
export function base32Decode(text: string): Buffer | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text.toLowerCase()) {
    const value = VALUES.get(char);
    if (value === undefined) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  // Leftover bits must be zero padding, or two strings would decode to the same bytes.
  if (bits >= 5 || buffer !== 0) return undefined;
  return Buffer.from(bytes);
}
