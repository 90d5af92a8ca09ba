import { Injectable } from '@nestjs/common';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { PgPool } from '../database/pg-pool';
import { PeriodicService } from '../timing/periodic-task';
import {
  COUNTERS_TABLE,
  CREATE_BUCKETS,
  LOCK_BUCKETS,
  MARK_IF_ABSENT,
  NOW_MS,
  SAVE_BUCKET,
  SWEEP_BUCKETS,
  SWEEP_MARKS,
  UNMARK,
} from './postgres-store.sql';
import { CounterOptions, insuranceFor, SharedStore, TokenBucket, TokenGrant } from './shared-store';
import { STORE_SWEEP_BATCH, STORE_SWEEP_EVERY_MS } from './store.settings';

/**
 * The shared store on PostgreSQL (REDIS_URL unset): the same guarantees as on Redis, from
 * row locks and ON CONFLICT instead of single-threaded commands. Each installation has its
 * own database, so keys need no QUEUE_PREFIX here.
 */
@Injectable()
export class PostgresStore extends SharedStore {
  readonly kind = 'PostgreSQL';

  constructor(private readonly pool: PgPool) {
    super();
  }

  async markIfAbsent(key: string, ttlMs?: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(MARK_IF_ABSENT, [key, ttlMs ?? null]);
    return rowCount === 1;
  }

  async unmark(key: string): Promise<void> {
    await this.pool.query(UNMARK, [key]);
  }

  connected(): boolean {
    return true;
  }

  ping(): Promise<unknown> {
    return this.pool.query('SELECT 1');
  }

  counter(options: CounterOptions): RateLimiterPostgres {
    return new RateLimiterPostgres({
      storeClient: this.pool,
      storeType: 'pool',
      // Created by the migrations, in the layout the library expects.
      tableName: COUNTERS_TABLE,
      tableCreated: true,
      keyPrefix: options.keyPrefix,
      points: options.points,
      duration: options.duration,
      insuranceLimiter: insuranceFor(options),
    });
  }

  /** The token bucket of the Redis store's script, as one transaction holding the rows' locks. */
  async takeTokens(buckets: TokenBucket[], wanted: number, burst: number): Promise<TokenGrant> {
    const limited = buckets.filter((bucket) => bucket.perMinute > 0);
    if (limited.length === 0) return { granted: wanted, retryInMs: 0 };
    const keys = limited.map((bucket) => bucket.key).sort();
    return this.pool.transaction(async (client) => {
      const nowMs = (await client.query<{ now_ms: number }>(NOW_MS)).rows[0].now_ms;
      await client.query(CREATE_BUCKETS, [keys, burst, nowMs]);
      const rows = (
        await client.query<{ key: string; tokens: number; at_ms: number }>(LOCK_BUCKETS, [keys])
      ).rows;
      let granted = wanted;
      let retryInMs = 0;
      const held = limited.map((bucket) => {
        const row = rows.find((candidate) => candidate.key === bucket.key)!;
        const perMs = bucket.perMinute / 60_000;
        const tokens = Math.min(burst, row.tokens + Math.max(0, nowMs - row.at_ms) * perMs);
        granted = Math.min(granted, Math.floor(tokens));
        if (tokens < 1) retryInMs = Math.max(retryInMs, Math.ceil((1 - tokens) / perMs));
        // The clock was read before the lock: a taker that read it later may have saved since.
        // The bucket's time never goes back, or the refill between the two reads counts twice.
        return { key: bucket.key, tokens, perMs, atMs: Math.max(nowMs, row.at_ms) };
      });
      granted = Math.max(0, granted);
      for (const bucket of held) {
        const keepMs = Math.ceil(burst / bucket.perMs) + 60_000;
        await client.query(SAVE_BUCKET, [bucket.key, bucket.tokens - granted, bucket.atMs, keepMs]);
      }
      return { granted, retryInMs };
    });
  }

  /** Deletes expired marks and buckets (counters: rate-limiter-flexible clears its own). */
  async sweep(): Promise<void> {
    await this.pool.query(SWEEP_MARKS, [STORE_SWEEP_BATCH]);
    await this.pool.query(SWEEP_BUCKETS, [STORE_SWEEP_BATCH]);
  }
}

/** On a timer in every process using the PostgreSQL store: its expired rows go. */
@Injectable()
export class PostgresStoreSweeper extends PeriodicService {
  constructor(private readonly store: PostgresStore) {
    super('shared store sweep', STORE_SWEEP_EVERY_MS);
  }

  protected pass(): Promise<void> {
    return this.store.sweep();
  }
}
