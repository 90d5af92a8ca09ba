import { Injectable } from '@nestjs/common';
import type { ApiKeyStatus } from '../generated/prisma/client';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { KEY_TOUCH_INTERVAL_MS } from './auth.settings';
import * as sql from './api-keys.sql';

export type KeyStatus = ApiKeyStatus;

/** A key as authentication needs it. */
export interface StoredKey {
  id: string;
  /** Read from the key's row: the account every request made with it is scoped to. */
  accountId: AccountId;
  scopes: string[];
  status: KeyStatus;
  lastUsedAt: Date | null;
}

/** What an account's key list shows: never the secret (only its hash is stored at all). */
const KEY_FIELDS = {
  id: true,
  name: true,
  lastFour: true,
  scopes: true,
  status: true,
  createdAt: true,
  lastUsedAt: true,
} as const;

/** An account never holds more than this many keys worth listing on one page. */
const LIST_CAP = 500;

/** api_keys and its only writer. The raw statements are in api-keys.sql.ts. */
@Injectable()
export class ApiKeysRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  /** The authentication hot path (every request): one indexed lookup straight through pg. */
  async findByHashAcrossAccounts(secretHash: string): Promise<StoredKey | undefined> {
    const { rows } = await this.pool.query<StoredKey>(sql.FIND_BY_SECRET_HASH, [secretHash]);
    return rows[0];
  }

  /**
   * Records that a key was used, at most once per KEY_TOUCH_INTERVAL_MS per process. `key` may
   * be the cached object shared by concurrent requests: its lastUsedAt moves before the write,
   * so they do not all write.
   */
  async touch(key: StoredKey, now: Date): Promise<void> {
    if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < KEY_TOUCH_INTERVAL_MS) {
      return;
    }
    key.lastUsedAt = now;
    await this.prisma.$executeRaw(sql.touch(key.accountId, key.id, now));
  }

  create(
    accountId: AccountId,
    key: { id: string; name: string; scopes: string[]; secretHash: string; lastFour: string },
  ) {
    return this.prisma.apiKey.create({ data: { ...key, accountId } });
  }

  async setStatus(accountId: AccountId, id: string, status: KeyStatus): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { accountId, id },
      data: { status },
    });
    return count === 1;
  }

  /**
   * The account a key belongs to: for the operator CLI, which names keys by id alone and is
   * trusted across accounts.
   */
  async accountOfKeyAcrossAccounts(id: string): Promise<AccountId | undefined> {
    const found = await this.prisma.apiKey.findUnique({
      where: { id },
      select: { accountId: true },
    });
    return found ? accountIdOfRow(found.accountId) : undefined;
  }

  list(accountId: AccountId) {
    return this.prisma.apiKey.findMany({
      where: { accountId },
      orderBy: { id: 'desc' },
      take: LIST_CAP,
      select: KEY_FIELDS,
    });
  }

  find(accountId: AccountId, id: string) {
    return this.prisma.apiKey.findFirst({ where: { accountId, id }, select: KEY_FIELDS });
  }

  /** Names of keys, for naming the actors in the audit log. */
  names(accountId: AccountId, ids: string[]) {
    return this.prisma.apiKey.findMany({
      where: { accountId, id: { in: ids } },
      select: { id: true, name: true, lastFour: true },
    });
  }
}

export type KeyRow = NonNullable<Awaited<ReturnType<ApiKeysRepository['find']>>>;
