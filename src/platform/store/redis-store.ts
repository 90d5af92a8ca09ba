import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { RedisService } from '../redis/redis.module';
import { CounterOptions, insuranceFor, SharedStore, TokenBucket, TokenGrant } from './shared-store';

/**
 * Takes from every bucket (KEYS) in one script, so a token is counted against all or none.
 * ARGV: each bucket's rate per minute (0: unlimited), then wanted, then burst. Time is Redis's
 * own clock (TIME). A bucket is kept for as long as it takes to refill, plus a minute.
 */
const TAKE_TOKENS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local wanted = tonumber(ARGV[n + 1])
local burst = tonumber(ARGV[n + 2])
local grant = wanted
local wait = 0
local buckets = {}
for i = 1, n do
  local rate = tonumber(ARGV[i])
  if rate > 0 then
    local per_ms = rate / 60000
    local held = redis.call('HMGET', KEYS[i], 'tokens', 'at')
    local tokens = tonumber(held[1])
    local at = tonumber(held[2])
    if tokens == nil or at == nil then
      tokens = burst
      at = now
    end
    tokens = math.min(burst, tokens + math.max(0, now - at) * per_ms)
    buckets[i] = { tokens, per_ms }
    local whole = math.floor(tokens)
    if whole < grant then grant = whole end
    if tokens < 1 then
      local until_one = math.ceil((1 - tokens) / per_ms)
      if until_one > wait then wait = until_one end
    end
  end
end
if grant < 1 then grant = 0 end
for i = 1, n do
  local bucket = buckets[i]
  if bucket then
    redis.call('HSET', KEYS[i], 'tokens', tostring(bucket[1] - grant), 'at', tostring(now))
    redis.call('PEXPIRE', KEYS[i], math.ceil(burst / bucket[2]) + 60000)
  end
end
return { grant, wait }
`;
const TAKE_TOKENS_SHA = createHash('sha1').update(TAKE_TOKENS).digest('hex');

/** The shared store on Redis (REDIS_URL set). RedisService prefixes every key with QUEUE_PREFIX. */
@Injectable()
export class RedisStore extends SharedStore {
  readonly kind = 'Redis';

  constructor(private readonly redis: RedisService) {
    super();
  }

  async markIfAbsent(key: string, ttlMs?: number): Promise<boolean> {
    const stored =
      ttlMs === undefined
        ? await this.redis.set(key, '1', 'NX')
        : await this.redis.set(key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
    return stored === 'OK';
  }

  async unmark(key: string): Promise<void> {
    await this.redis.del(key);
  }

  connected(): boolean {
    return this.redis.status === 'ready';
  }

  ping(): Promise<unknown> {
    return this.redis.ping();
  }

  counter(options: CounterOptions): RateLimiterRedis {
    return new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: options.keyPrefix,
      points: options.points,
      duration: options.duration,
      insuranceLimiter: insuranceFor(options),
    });
  }

  async takeTokens(buckets: TokenBucket[], wanted: number, burst: number): Promise<TokenGrant> {
    const keys = buckets.map((bucket) => bucket.key);
    const args = [...buckets.map((bucket) => bucket.perMinute), wanted, burst];
    const [granted, retryInMs] = await this.run(keys, args);
    return { granted, retryInMs };
  }

  /** EVALSHA, loading the script on the first use (or after Redis restarted empty). */
  private async run(keys: string[], args: number[]): Promise<[number, number]> {
    try {
      return (await this.redis.evalsha(TAKE_TOKENS_SHA, keys.length, ...keys, ...args)) as [
        number,
        number,
      ];
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      return (await this.redis.eval(TAKE_TOKENS, keys.length, ...keys, ...args)) as [
        number,
        number,
      ];
    }
  }
}
