import type { AccountId } from '../database/account-id';
import { InvalidRequestError } from '../errors/api-errors';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** The query of every list endpoint, as the client sent it. */
export interface ListQuery {
  limit?: unknown;
  cursor?: unknown;
}

/** A page request once parsed: `afterId` is the keyset position, absent on the first page. */
export interface PageRequest {
  limit: number;
  afterId?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * List endpoints: limit defaults to 25 and is clamped into 1..100, never rejected, unless it is not
 * a number at all (400). A repeated parameter (?limit=1&limit=2) is malformed too.
 */
export function parseLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(value)) throw new InvalidRequestError('limit must be a number.');
  return Math.min(MAX_LIMIT, Math.max(1, Math.trunc(value)));
}

export function parseCursor(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 512) {
    throw new InvalidRequestError('The cursor is invalid or was issued for another list.');
  }
  return raw;
}

/**
 * The findMany arguments of one keyset page over an account's rows, newest first: ids are
 * time-ordered UUIDv7, so `id < last id` is the next page. Shared by every list repository.
 */
export function keysetPage(accountId: string, page: PageRequest) {
  return {
    where: { accountId, ...(page.afterId ? { id: { lt: page.afterId } } : {}) },
    orderBy: { id: 'desc' as const },
    take: page.limit,
  };
}

/**
 * A repository's own keyset listing of an account's rows (Paginator.list pages it). Its name
 * is what the page cursors are signed for, so a cursor of one listing is refused by another:
 * one name per listing, kept beside the query whose order the cursor points into.
 */
export interface KeysetListing<Row> {
  readonly listName: string;
  listPage(accountId: AccountId, page: PageRequest): Promise<Row[]>;
}
