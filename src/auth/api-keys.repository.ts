import { Injectable } from '@nestjs/common';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';

export type KeyStatus = 'active' | 'revoked' | 'suspended';

export interface StoredKey {
  id: string;
  accountId: string;
  scopes: string[];
  status: string;
  lastUsedAt: Date | null;
}

/** last_used_at is written at most this often per key, to keep writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

@Injectable()
export class ApiKeysRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  /** The authentication hot path (every request): one indexed lookup straight through pg. */
  async findByHash(secretHash: string): Promise<StoredKey | undefined> {
    const { rows } = await this.pool.query<StoredKey>(
      `SELECT id, account_id AS "accountId", scopes, status, last_used_at AS "lastUsedAt"
       FROM api_keys WHERE secret_hash = $1`,
      [secretHash],
    );
    return rows[0];
  }

  async touch(key: StoredKey, now: Date): Promise<void> {
    if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < TOUCH_INTERVAL_MS) return;
    await this.prisma.$executeRaw`
      UPDATE api_keys SET last_used_at = ${now} WHERE id = ${key.id}::uuid`;
  }

  create(
    accountId: string,
    key: { id: string; name: string; scopes: string[]; secretHash: string; lastFour: string },
  ) {
    return this.prisma.apiKey.create({ data: { ...key, accountId } });
  }

  async setStatus(id: string, status: KeyStatus) {
    const { count } = await this.prisma.apiKey.updateMany({ where: { id }, data: { status } });
    return count === 1;
  }
}
