import { RateLimiterMemory, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';

/** A rate-limiter-flexible counter: `points` per `duration` seconds under `keyPrefix`. */
export interface CounterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
  /**
   * Keep counting in this process's memory while the store cannot answer, rather than fail
   * the request (the library's insurance limiter).
   */
  insured?: boolean;
}

/** The in-process count an insured counter falls back on while its store cannot answer. */
export function insuranceFor({ keyPrefix, points, duration, insured }: CounterOptions) {
  return insured ? new RateLimiterMemory({ keyPrefix, points, duration }) : undefined;
}

/** A token bucket refilled at `perMinute` tokens a minute; 0: no limit. */
export interface TokenBucket {
  key: string;
  perMinute: number;
}

/** What the buckets granted: `granted` now, or none and when to ask again. */
export interface TokenGrant {
  granted: number;
  /** When nothing was granted: milliseconds until the emptiest bucket holds one token. */
  retryInMs: number;
}

/**
 * The short-lived state every process of an installation shares: marks that expire (a first
 * hit, a seen token), rate-limit counters and token buckets. Two implementations: Redis
 * (REDIS_URL set) and PostgreSQL (REDIS_URL unset). The rest of Herald asks this class and
 * never knows which one answers; BullMQ's queues follow the same choice (store.module.ts).
 */
export abstract class SharedStore {
  /** What answers, for the start log and the probes: "Redis" or "PostgreSQL". */
  abstract readonly kind: 'Redis' | 'PostgreSQL';

  /**
   * Sets `key` unless it is already set (and not expired); true when this call set it.
   * Atomic across processes: of two racing calls exactly one gets true. `ttlMs` undefined:
   * kept until removed.
   */
  abstract markIfAbsent(key: string, ttlMs?: number): Promise<boolean>;

  /** Removes a mark, so the next markIfAbsent sets it again. */
  abstract unmark(key: string): Promise<void>;

  /**
   * Whether the store is reachable as far as this process knows, without asking it: Redis's
   * connection is up; PostgreSQL is taken as up (its outage shows on the next statement).
   */
  abstract connected(): boolean;

  /** Resolves when the store answers; rejects otherwise. */
  abstract ping(): Promise<unknown>;

  /** A fixed-window counter of rate-limiter-flexible kept in this store. */
  abstract counter(options: CounterOptions): RateLimiterStoreAbstract;

  /**
   * Takes up to `wanted` tokens from every bucket at once (atomically: all or none count),
   * each bucket holding at most `burst`. Time is the store's clock, the same for every process.
   */
  abstract takeTokens(buckets: TokenBucket[], wanted: number, burst: number): Promise<TokenGrant>;
}
