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
 * more than everything else it does per row but the hashing.
 */
export function newIds(count: number, now: number = Date.now()): string[] {
  const random = randomBytes(16 * count);
  const ids = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    ids[index] = formatId(random.subarray(16 * index, 16 * index + 16), now);
  }
  return ids;
}

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
