import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../../src/platform/crypto/ids';
import { parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { openSharedRedis, readyOrLater } from '../../src/platform/redis/redis.module';
import { PostgresStore } from '../../src/platform/store/postgres-store';
import { RedisStore } from '../../src/platform/store/redis-store';
import { SharedStore } from '../../src/platform/store/shared-store';
import {
  SEND_BURST,
  SendRateLimiter,
  SendRates,
} from '../../src/campaigns/delivery/send-rate-limiter';
import { TestEnv } from '../support/test-env';

/** A store on a connection of its own, as each worker process has, and how to close it. */
interface OwnStore {
  store: SharedStore;
  close(): Promise<void>;
}

const STORES: [string, (env: TestEnv) => Promise<OwnStore>][] = [
  [
    'Redis',
    async (env) => {
      const redis = openSharedRedis({
        ...env.config,
        redis: { kind: 'single', url: env.redisServer },
      });
      await readyOrLater(redis);
      return {
        store: new RedisStore(redis),
        close: async () => {
          await redis.quit();
        },
      };
    },
  ],
  [
    'PostgreSQL',
    (env) => {
      const pool = new PgPool(env.config);
      return Promise.resolve({ store: new PostgresStore(pool), close: () => pool.end() });
    },
  ],
];

/**
 * The send throttle's token buckets on each real store, taken from by two limiters on two
 * connections of their own, as two worker processes would: together they keep the pace, the
 * same on Redis as on PostgreSQL.
 */
describe.each(STORES)('SendRateLimiter on %s', (_name, open) => {
  let env: TestEnv;
  let stores: OwnStore[];
  let limiters: SendRateLimiter[];

  beforeAll(async () => {
    env = await TestEnv.create();
    stores = [await open(env), await open(env)];
    limiters = stores.map(({ store }) => new SendRateLimiter(store));
  });
  afterAll(async () => {
    for (const own of stores ?? []) await own.close();
    await env?.dispose();
  });

  const account = () => parseAccountId(newId());

  /**
   * Every limiter takes, as a delivery job does (asking again when told to), until `total`
   * messages were granted between them; returns how long that took and each one's share.
   */
  async function drain(
    takers: { limiter: SendRateLimiter; campaignId: string }[],
    accountId: ReturnType<typeof account>,
    rates: SendRates,
    total: number,
  ) {
    let granted = 0;
    const shares = takers.map(() => 0);
    const started = Date.now();
    await Promise.all(
      takers.map(async ({ limiter, campaignId }, index) => {
        while (granted < total) {
          const grant = await limiter.take(accountId, campaignId, rates, 50);
          expect(grant.granted).toBeLessThanOrEqual(SEND_BURST);
          granted += grant.granted;
          shares[index] += grant.granted;
          if (grant.granted === 0) await sleep(grant.retryInMs);
        }
      }),
    );
    return { elapsedMs: Date.now() - started, granted, shares };
  }

  it('grants a first burst of at most 4, then nothing until a token has refilled', async () => {
    const accountId = account();
    const campaignId = newId();
    const rates = { campaign: 60, account: undefined };
    const first = await limiters[0].take(accountId, campaignId, rates, 50);
    expect(first).toEqual({ granted: SEND_BURST, retryInMs: 0 });
    const second = await limiters[1].take(accountId, campaignId, rates, 50);
    expect(second.granted).toBe(0);
    // 60 a minute: one a second.
    expect(second.retryInMs).toBeGreaterThan(900);
    expect(second.retryInMs).toBeLessThanOrEqual(1000);
  });

  it('keeps one campaign at its rate across two connections', async () => {
    const campaignId = newId();
    const rates = { campaign: 1200, account: undefined }; // 20 a second
    const total = 64;
    const result = await drain(
      limiters.map((limiter) => ({ limiter, campaignId })),
      account(),
      rates,
      total,
    );
    // After the burst, (total - 4) tokens at 20/s take 3 s; never faster.
    const floor = ((result.granted - SEND_BURST) / 20) * 1000;
    expect(result.elapsedMs).toBeGreaterThanOrEqual(floor * 0.97);
    expect(result.elapsedMs).toBeLessThan(floor * 1.5 + 1000);
    // Both took part.
    expect(Math.min(...result.shares)).toBeGreaterThan(0);
  });

  it('shares the account rate among its campaigns, the slower bucket deciding', async () => {
    const accountId = account();
    // Each campaign may do 6000 a minute; the account only 1200 (20 a second) for all.
    const rates = { campaign: 6000, account: 1200 };
    const result = await drain(
      [
        { limiter: limiters[0], campaignId: newId() },
        { limiter: limiters[1], campaignId: newId() },
      ],
      accountId,
      rates,
      64,
    );
    const floor = ((result.granted - SEND_BURST) / 20) * 1000;
    expect(result.elapsedMs).toBeGreaterThanOrEqual(floor * 0.97);
    // Another account is not held back by this one's bucket.
    const other = await limiters[0].take(account(), newId(), rates, 50);
    expect(other.granted).toBe(SEND_BURST);
  });

  it('lets an unthrottled campaign through at once', async () => {
    const grant = await limiters[0].take(
      account(),
      newId(),
      { campaign: undefined, account: undefined },
      50,
    );
    expect(grant).toEqual({ granted: 50, retryInMs: 0 });
  });
});
