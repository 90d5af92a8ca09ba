import { Injectable } from '@nestjs/common';
import type { AccountId } from '../database/account-id';
import { KeyedHasher } from '../crypto/keyed-hasher';
import { CursorCodec } from './cursor-codec';
import {
  KeysetListing,
  ListQuery,
  Page,
  PageRequest,
  parseCursor,
  parseLimit,
} from './page-request';

/**
 * Runs one keyset page of a list: parses limit and cursor, asks the repository for one row
 * more than the limit (to learn whether another page exists without counting), and signs
 * the next cursor.
 */
@Injectable()
export class Paginator {
  private readonly codec: CursorCodec;

  constructor(hasher: KeyedHasher) {
    this.codec = new CursorCodec(hasher);
  }

  async page<Row extends { id: string }, Item>(
    accountId: string,
    list: string,
    query: ListQuery,
    fetch: (request: PageRequest) => Promise<Row[]>,
    present: (row: Row) => Item,
  ): Promise<Page<Item>> {
    const limit = parseLimit(query.limit);
    const cursor = parseCursor(query.cursor);
    const afterId = cursor === undefined ? undefined : this.codec.decode(accountId, list, cursor);
    const rows = await fetch({ limit: limit + 1, afterId });
    const hasMore = rows.length > limit;
    const pageRows = hasMore ? rows.slice(0, limit) : rows;
    const last = pageRows.at(-1);
    return {
      data: pageRows.map(present),
      next_cursor: hasMore && last ? this.codec.encode(accountId, list, last.id) : null,
    };
  }

  /** page() of a repository's own keyset listing, under the listing's name. */
  list<Row extends { id: string }, Item>(
    accountId: AccountId,
    query: ListQuery,
    listing: KeysetListing<Row>,
    present: (row: Row) => Item,
  ): Promise<Page<Item>> {
    return this.page(
      accountId,
      listing.listName,
      query,
      (request) => listing.listPage(accountId, request),
      present,
    );
  }
}
