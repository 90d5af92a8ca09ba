import { Redis } from 'ioredis';
import { commandKeyPrefix } from '../../src/platform/redis/redis-clients';
import { TestEnv } from './test-env';

/**
 * The rate-limit counters of this env's Herald whose keys start with `prefix` and that have
 * not expired, wherever its shared store keeps them: Redis keys under `{QUEUE_PREFIX}:`, or rows
 * of store_counters (REDIS_URL unset). Keys come back without the QUEUE_PREFIX.
 */
export async function liveCounters(env: TestEnv, prefix: string): Promise<string[]> {
  if (!env.config.redis) {
    const rows = await env.sql<{ key: string }>(
      `SELECT key FROM store_counters WHERE starts_with(key, $1) AND (expire IS NULL OR expire > $2)`,
      [prefix, Date.now()],
    );
    return rows.map((row) => row.key);
  }
  const redis = new Redis(env.redisServer);
  try {
    const keyPrefix = commandKeyPrefix(env.config.queuePrefix);
    const keys = await redis.keys(`${keyPrefix}${prefix}*`);
    return keys.map((key) => key.slice(keyPrefix.length));
  } finally {
    redis.disconnect();
  }
}
