import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import { InvalidRequestError } from '../platform/errors/api-errors';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const MAX_LENGTH = 255;

/** The Idempotency-Key header: absent, or 1 to 255 characters; else 400. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || raw.length === 0 || raw.length > MAX_LENGTH) {
    throw new InvalidRequestError(
      `The Idempotency-Key header must be one value of 1 to ${MAX_LENGTH} characters.`,
    );
  }
  return raw;
}

/**
 * Identifies a payload: a keyed hash (HMAC-SHA256 under the master secret) of its canonical
 * JSON, so the same content in another key order matches, and the stored fingerprint cannot
 * be used to guess the recipient or the content.
 */
export function payloadFingerprint(
  hasher: KeyedHasher,
  endpoint: string,
  payload: unknown,
): string {
  return hasher.hash(`idempotency:${endpoint}`, canonicalJson(payload));
}

/** JSON with object keys sorted at every level; undefined members dropped as JSON does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  // fromEntries defines own properties, so a member named __proto__ stays a member.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
