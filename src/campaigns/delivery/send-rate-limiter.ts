import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { AccountId } from '../../platform/database/account-id';
import { RedisService } from '../../platform/redis/redis.module';

/**
 * How many messages may leave at once after a pause in sending: the "first burst". After it,
 * a bucket refills at rate/60 messages a second, so a campaign goes out as a steady pace
 * rather than a minute's allowance at once.
 */
export const SEND_BURST = 4;

/** Messages per minute for one campaign and for its account; undefined: no limit. */
export interface SendRates {
  campaign: number | undefined;
  account: number | undefined;
}

/** What the bucket granted: `granted` messages now, or none and when to ask again. */
export interface SendGrant {
  granted: number;
  /** When nothing was granted: milliseconds until the emptier bucket holds one message. */
  retryInMs: number;
}

/**
 * Two token buckets, the campaign's and its account's, taken from together in one atomic
 * script, so a message is counted against both or neither. Time is Redis's own clock (TIME),
 * the same for every worker process whatever their clocks say. A bucket holds at most
 * SEND_BURST tokens and is kept for as long as it takes to refill, plus a minute.
 */
const TAKE_TOKENS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wanted = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local grant = wanted
local wait = 0
local buckets = {}
for i = 1, 2 do
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
for i = 1, 2 do
  local bucket = buckets[i]
  if bucket then
    redis.call('HSET', KEYS[i], 'tokens', tostring(bucket[1] - grant), 'at', tostring(now))
    redis.call('PEXPIRE', KEYS[i], math.ceil(burst / bucket[2]) + 60000)
  end
end
return { grant, wait }
`;
const TAKE_TOKENS_SHA = createHash('sha1').update(TAKE_TOKENS).digest('hex');

/**
 * The campaign send throttle, shared by every worker process through Redis: a delivery job
 * asks it before each claim of recipients, and claims only what it grants.
 */
@Injectable()
export class SendRateLimiter {
  constructor(private readonly redis: RedisService) {}

  /** Takes up to `wanted` messages from the campaign's and the account's buckets. */
  async take(
    accountId: AccountId,
    campaignId: string,
    rates: SendRates,
    wanted: number,
  ): Promise<SendGrant> {
    const keys = [`send-rate:campaign:${campaignId}`, `send-rate:account:${accountId}`];
    const args = [rates.campaign ?? 0, rates.account ?? 0, wanted, SEND_BURST];
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
