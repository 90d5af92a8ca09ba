import { Injectable } from '@nestjs/common';
import { Prisma, Subscriber } from '../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import { copyFrom, copyText, copyTextArray } from '../platform/database/copy-from';
import type { Db, PgClient } from '../platform/database/db';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { KeysetListing, PageRequest } from '../platform/pagination/page-request';
import { ProfileFieldProp } from './subscriber-fields';
import * as sql from './subscribers.sql';

/**
 * The subscribers table's rows and profiles: created and updated by clients, unsubscribed by
 * a link, deleted by an erasure. Statistics are SubscriberStatisticsRepository's; every raw
 * statement over the table is in subscribers.sql.ts.
 */
@Injectable()
export class SubscribersRepository implements KeysetListing<Subscriber> {
  readonly listName = 'subscribers';

  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  /**
   * Newest first, keyset on the time-ordered id. The hottest read of the API, so it goes
   * straight through pg: Prisma's runtime cost more than the query (docs/decisions.md).
   */
  async listPage(accountId: AccountId, page: PageRequest): Promise<Subscriber[]> {
    const { rows } = await this.pool.query<Subscriber>(sql.LIST_PAGE, [
      accountId,
      page.afterId ?? null,
      page.limit,
    ]);
    // pg returns int8 as a string; Prisma's type says bigint.
    for (const row of rows) row.statRevenueCents = BigInt(row.statRevenueCents);
    return rows;
  }

  /**
   * The status as it stands, the row locked until `tx` ends: a change of status decided from it
   * (and announced) cannot cross another writer's change of the same row.
   */
  async lockStatus(accountId: AccountId, id: string, tx: Db): Promise<string | undefined> {
    const [row] = await tx.$queryRaw<{ status: string }[]>(sql.lockStatus(accountId, id));
    return row?.status;
  }

  findById(accountId: AccountId, id: string, db: Db = this.prisma): Promise<Subscriber | null> {
    return db.subscriber.findFirst({ where: { accountId, id } });
  }

  /**
   * The rows of a chunk of campaign recipients, on the send hot path: straight through pg,
   * mapped to Prisma's Subscriber type (a missing id is a subscriber erased meanwhile).
   */
  async findByIds(accountId: AccountId, ids: string[]): Promise<Subscriber[]> {
    const { rows } = await this.pool.query<Record<string, unknown>>(sql.BY_IDS, [accountId, ids]);
    return rows.map(toSubscriber);
  }

  /** Every subscriber with this normalised email among these accounts (one per account at most). */
  async idsByEmail(
    accountIds: AccountId[],
    emailNormalized: string,
  ): Promise<{ accountId: AccountId; subscriberId: string }[]> {
    const rows = await this.prisma.subscriber.findMany({
      where: { accountId: { in: accountIds }, emailNormalized },
      select: { accountId: true, id: true },
    });
    return rows.map((row) => ({ accountId: accountIdOfRow(row.accountId), subscriberId: row.id }));
  }

  /** The subscriber with this normalised email, if any. */
  findByEmail(
    accountId: AccountId,
    emailNormalized: string,
    db: Db = this.prisma,
  ): Promise<Subscriber | null> {
    return db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
    });
  }

  async emailTaken(accountId: AccountId, emailNormalized: string, db: Db): Promise<boolean> {
    const found = await db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
      select: { id: true },
    });
    return found !== null;
  }

  create(
    accountId: AccountId,
    id: string,
    columns: Prisma.SubscriberUncheckedUpdateInput,
    db: Db,
  ): Promise<Subscriber> {
    return db.subscriber.create({
      data: { ...columns, id, accountId } as Prisma.SubscriberUncheckedCreateInput,
    });
  }

  /** Null when the subscriber no longer exists (e.g. erased meanwhile). */
  async update(
    accountId: AccountId,
    id: string,
    columns: Prisma.SubscriberUncheckedUpdateInput,
    db: Db,
  ): Promise<Subscriber | null> {
    const { count } = await db.subscriber.updateMany({
      where: { accountId, id },
      // Stamped here too: Prisma skips @updatedAt when no other column changes, and an empty
      // PATCH still counts as an update.
      data: { ...columns, updatedAt: new Date() },
    });
    return count === 0 ? null : db.subscriber.findFirst({ where: { accountId, id } });
  }

  /** Unsubscribes (a link in a campaign message); idempotent, a no-op once erased. */
  async unsubscribe(accountId: AccountId, id: string): Promise<void> {
    await this.prisma.$executeRaw(sql.unsubscribe(accountId, id));
  }

  /** The id of the subscriber with this normalised email, if any. */
  async findIdByEmail(
    accountId: AccountId,
    emailNormalized: string,
    db: Db,
  ): Promise<string | undefined> {
    const found = await db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
      select: { id: true },
    });
    return found?.id;
  }

  /**
   * A suppression entry was removed: the subscriber with that address goes back to
   * `subscribed` if its status is still the one the entry caused (`fromStatus`), and its
   * soft-bounce streak starts over. Returns whether the status changed.
   */
  async reactivate(
    accountId: AccountId,
    emailNormalized: string,
    fromStatus: string | undefined,
    db: Db,
  ): Promise<boolean> {
    const rows = await db.$queryRaw<{ reactivated: boolean }[]>(
      sql.reactivate(accountId, emailNormalized, fromStatus),
    );
    return rows[0]?.reactivated ?? false;
  }

  // ---- bulk writes: on the caller's PgPool transaction -------------------------------------

  /** The subscribers with these normalised emails, locked until the transaction ends. */
  async lockByEmails(
    client: PgClient,
    accountId: AccountId,
    emailsNormalized: string[],
  ): Promise<ProfileRow[]> {
    if (emailsNormalized.length === 0) return [];
    const { rows } = await client.query<ProfileRow>(sql.LOCK_BY_EMAILS, [
      accountId,
      emailsNormalized,
    ]);
    return rows;
  }

  /**
   * New subscribers, sent with COPY: for PostgreSQL a third cheaper than the same rows read from
   * JSON with jsonb_to_recordset, and cheaper to write here than the JSON (bench/import). The
   * caller holds the identity locks of their emails and found none of them, so nothing can
   * conflict (the table's unique index still stands guard).
   */
  async insertMany(client: PgClient, accountId: AccountId, rows: ProfileRow[]): Promise<void> {
    if (rows.length > 0) await copyFrom(client, sql.COPY_NEW, copyLines(accountId, rows));
  }

  /** Sets every profile column of these subscribers to the rows' values. */
  async updateProfiles(client: PgClient, accountId: AccountId, rows: ProfileRow[]): Promise<void> {
    if (rows.length > 0) await client.query(sql.UPDATE_PROFILES, [accountId, profileJson(rows)]);
  }

  // ---- staged bulk writes (CSV import) ----------------------------------------------------

  /** The staged rows' erasure hashes, as a query (for the identity locks). */
  readonly stagedHashes = sql.STAGED_HASHES;

  /** Makes the staging table where it is missing: the opening of a staged write's transaction. */
  readonly stagingTable = sql.CREATE_STAGE;

  /**
   * A batch's lines (subscriber-stage.ts), carrying these profile fields, into the transaction's
   * staging table (emptied at commit).
   */
  async stage(client: PgClient, fields: readonly string[], lines: Buffer): Promise<void> {
    await copyFrom(client, sql.copyStage(fields), lines);
  }

  /**
   * Decides and writes the staged rows (sql.UPSERT_STAGED). The caller holds the identity locks
   * of every staged hash.
   */
  async upsertStaged(
    client: PgClient,
    accountId: AccountId,
    mode: 'upsert' | 'create',
  ): Promise<StagedResult> {
    const { rows } = await client.query<StagedResult & { written: number }>(sql.UPSERT_STAGED, [
      accountId,
      mode,
    ]);
    const { written, ...result } = rows[0];
    if (written !== result.created + result.updated) {
      throw new Error(
        `the staged write wrote ${written} rows for ${result.created + result.updated}`,
      );
    }
    return result;
  }

  /** The staged rows at these positions, their columns by name (subscriber-stage.ts reads them). */
  async stagedRows(client: PgClient, positions: number[]): Promise<Record<string, unknown>[]> {
    if (positions.length === 0) return [];
    const { rows } = await client.query<Record<string, unknown>>(sql.STAGED_ROWS, [positions]);
    return rows;
  }

  /** One page of an export, oldest first, within a segment's filter (SQL over `s`). */
  async exportPage(
    accountId: AccountId,
    filter: Prisma.Sql,
    afterId: string | null,
    limit: number,
  ): Promise<Subscriber[]> {
    const rows = await this.prisma.$queryRaw<Record<string, unknown>[]>(
      sql.exportPage(filter, accountId, afterId, limit),
    );
    return rows.map(toSubscriber);
  }

  /** The custom field keys of the subscribers within a filter, sorted, at most `limit`. */
  async customKeys(accountId: AccountId, filter: Prisma.Sql, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ key: string }[]>(
      sql.customKeys(filter, accountId, limit),
    );
    return rows.map((row) => row.key);
  }

  /** Erasure removes the row itself, last, inside the erasing transaction. */
  async delete(accountId: AccountId, id: string, tx: Db): Promise<void> {
    await tx.subscriber.deleteMany({ where: { accountId, id } });
  }
}

/** What the staged statement did with a batch: counts, and what it left to the caller. */
export interface StagedResult {
  created: number;
  updated: number;
  unchanged: number;
  erased: number;
  /** Positions of rows the writer decides in JavaScript instead. */
  deferred: number[];
  /** Hashes of the erased identities the batch tried to write. */
  erasedHashes: string[];
  /** Subscribers the batch changed to `unsubscribed`. */
  unsubscribed: string[];
}

/**
 * What a bulk write reads and writes of a subscriber: the id and the profile columns, under
 * Prisma's field names (the statistics are never touched by a profile write).
 */
export type ProfileRow = Pick<
  Subscriber,
  'id' | 'email' | 'emailNormalized' | ProfileFieldProp | 'importedStats'
>;

/** Rows as the JSON array jsonb_to_recordset reads: snake_case columns. */
function profileJson(rows: ProfileRow[]): string {
  return JSON.stringify(
    rows.map((row) => {
      const out: Record<string, unknown> = { id: row.id };
      for (const column of sql.PROFILE_COLUMNS) {
        out[column] = (row as unknown as Record<string, unknown>)[fieldName(column)] ?? null;
      }
      return out;
    }),
  );
}

const FIELD_NAMES = new Map<string, string>();
function fieldName(column: string): string {
  let name = FIELD_NAMES.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    FIELD_NAMES.set(column, name);
  }
  return name;
}

type Encoder = (value: unknown) => string;
const ENCODERS: Record<(typeof sql.PROFILE)[number][1], Encoder> = {
  text: (value) => copyText(value as string | null),
  timestamptz: (value) => (value == null ? '\\N' : new Date(value as Date).toISOString()),
  'text[]': (value) => copyTextArray(value as string[] | null),
  jsonb: (value) => (isEmpty(value) ? (Array.isArray(value) ? '[]' : '{}') : copyJson(value)),
};

/** An empty list or object: most rows' social media and statistics, said without JSON. */
function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

function copyJson(value: unknown): string {
  return copyText(value == null ? null : JSON.stringify(value));
}
const PROFILE_ENCODERS = sql.PROFILE.map(
  ([column, type]) => [fieldName(column), ENCODERS[type]] as const,
);

/** Rows as the lines of sql.COPY_NEW. */
function copyLines(accountId: AccountId, rows: ProfileRow[]): string {
  const lines = new Array<string>(rows.length + 1);
  const cells = new Array<string>(PROFILE_ENCODERS.length + 2);
  cells[1] = accountId;
  for (let index = 0; index < rows.length; index++) {
    const fields = rows[index] as unknown as Record<string, unknown>;
    cells[0] = rows[index].id;
    for (let column = 0; column < PROFILE_ENCODERS.length; column++) {
      const [field, encode] = PROFILE_ENCODERS[column];
      cells[column + 2] = encode(fields[field]);
    }
    lines[index] = cells.join('\t');
  }
  lines[rows.length] = '';
  return lines.join('\n');
}

/**
 * A `subscribers` row as Prisma's Subscriber: `stat_hard_bounces` → `statHardBounces` (the
 * schema maps every column this way), and int8 from pg's string to the bigint Prisma gives.
 */
function toSubscriber(row: Record<string, unknown>): Subscriber {
  const fields: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) fields[fieldName(column)] = value;
  fields.statRevenueCents = BigInt(fields.statRevenueCents as string);
  return fields as unknown as Subscriber;
}
