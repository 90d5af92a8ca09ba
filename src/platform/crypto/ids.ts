import { randomBytes } from 'node:crypto';

/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then randomness. Ids sort by creation
 * time, so every list pages on the primary key alone and inserts stay index-friendly.
 */
export function newId(now: number = Date.now()): string {
  return formatId(randomBytes(16), now);
}

/**
 * `count` new ids from one draw of randomness: drawing 16 bytes at a time cost a bulk write
 * more than everything else it does per row but the hashing. They share `now`, so the time's
 * 12 hex digits are written once, and each id is slices of one hex string of the randomness
 * with its version (7) and variant (10) bits set: the layout `formatId` gives.
 */
export function newIds(count: number, now: number = Date.now()): string[] {
  const time = Buffer.alloc(6);
  time.writeUIntBE(now, 0, 6);
  const head = time.toString('hex');
  const first = `${head.slice(0, 8)}-${head.slice(8, 12)}-7`;
  const random = randomBytes(10 * count).toString('hex');
  const ids = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    const at = 20 * index;
    // Byte 8's two high bits are the variant (10): its first hex digit is 8, 9, a or b.
    const variant = VARIANT_DIGITS[parseInt(random[at + 3], 16) & 3];
    ids[index] =
      `${first}${random.slice(at, at + 3)}-${variant}${random.slice(at + 4, at + 7)}-` +
      random.slice(at + 7, at + 19);
  }
  return ids;
}

const VARIANT_DIGITS = '89ab';

function formatId(bytes: Buffer, now: number): string {
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
