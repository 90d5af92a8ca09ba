// Postgres and Redis helpers shared by the benchmarks.

import { Redis } from 'ioredis';
import { Client } from 'pg';

export const PG_SERVER = process.env.PG_SERVER ?? 'postgresql://postgres@127.0.0.1:5432';
/**
 * BENCH_STORE=postgresql: Herald runs with REDIS_URL unset (queues, rate limits and locks in
 * PostgreSQL, as on a bare machine); default: the Redis of REDIS_URL.
 */
export const POSTGRES_STORE = process.env.BENCH_STORE === 'postgresql';
export const REDIS_URL = POSTGRES_STORE
  ? undefined
  : (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

/** Opens one connection to `url`, hands it to `use`, and always closes it. */
export async function withClient<T>(url: string, use: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}

export async function deleteRedisKeys(pattern: string): Promise<void> {
  if (!REDIS_URL) return;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
