import { RateLimiterRes } from 'rate-limiter-flexible';
import { PgPool } from '../../src/platform/database/pg-pool';
import { PostgresStore } from '../../src/platform/store/postgres-store';
import type { TokenGrant } from '../../src/platform/store/shared-store';
import { TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * The shared store's PostgreSQL statements (postgres-store.sql.ts) on a real database: marks
 * set once whoever races, expiry, removal and the sweep, and the rate-limit counters. (The
 * token buckets: send-rate-limiter.medium-spec.ts, on both stores.)
 */
describe('PostgresStore', () => {
  let env: TestEnv;
  let pool: PgPool;
  let store: PostgresStore;

  beforeAll(async () => {
    env = await TestEnv.create();
    pool = new PgPool(env.config);
    store = new PostgresStore(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await env?.dispose();
  });

  it('sets a mark once, whoever races for it, until it is removed', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => store.markIfAbsent('race')));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.markIfAbsent('race')).toBe(false);
    await store.unmark('race');
    expect(await store.markIfAbsent('race')).toBe(true);
  });

  it('sets an expired mark again, and the sweep deletes expired marks only', async () => {
    expect(await store.markIfAbsent('short', 50)).toBe(true);
    expect(await store.markIfAbsent('long', 60_000)).toBe(true);
    expect(await store.markIfAbsent('short', 50)).toBe(false);
    await waitFor(() => store.markIfAbsent('short', 50), { message: 'the mark never expired' });

    await waitFor(
      async () =>
        (await env.sql(`SELECT 1 FROM store_marks WHERE key = 'short' AND expires_at <= now()`))
          .length === 1,
    );
    await store.sweep();
    const keys = (await env.sql<{ key: string }>(`SELECT key FROM store_marks ORDER BY key`)).map(
      (row) => row.key,
    );
    expect(keys).toContain('long');
    expect(keys).not.toContain('short');
  });

  it('counts requests in store_counters and refuses past the limit', async () => {
    const counter = store.counter({ keyPrefix: 'medium', points: 2, duration: 60 });
    await counter.consume('someone');
    const second = await counter.consume('someone');
    expect(second.remainingPoints).toBe(0);
    await expect(counter.consume('someone')).rejects.toBeInstanceOf(RateLimiterRes);
    const [row] = await env.sql<{ points: number }>(
      `SELECT points FROM store_counters WHERE key = 'medium:someone'`,
    );
    expect(row.points).toBe(3);
  });

  it('never turns a token bucket back to the clock of a taker that waited for its lock', async () => {
    // A taker reads the store's clock, then waits for the bucket's lock while another taker,
    // whose clock read came later, takes and saves. Saving the waiter's earlier time would
    // count the refill between the two reads twice: more messages than the rate allows.
    const key = 'send-rate:account:race';
    const bucket = [{ key, perMinute: 60 }];
    expect((await store.takeTokens(bucket, 10, 4)).granted).toBe(4);
    let waiter: Promise<TokenGrant> | undefined;
    const holderAt = await pool.transaction(async (client) => {
      await client.query(`SELECT 1 FROM store_token_buckets WHERE key = $1 FOR UPDATE`, [key]);
      waiter = store.takeTokens(bucket, 10, 4);
      await env.waitForLockWaiter(
        '%store_token_buckets%',
        'the second taker never waited for the lock',
      );
      const { rows } = await client.query<{ now_ms: number }>(
        `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 + 1 AS now_ms`,
      );
      await client.query(`UPDATE store_token_buckets SET tokens = 0, at_ms = $2 WHERE key = $1`, [
        key,
        rows[0].now_ms,
      ]);
      return rows[0].now_ms;
    });
    expect((await waiter!).granted).toBe(0);
    const [saved] = await env.sql<{ at_ms: number }>(
      `SELECT at_ms::float8 AS at_ms FROM store_token_buckets WHERE key = $1`,
      [key],
    );
    expect(saved.at_ms).toBeGreaterThanOrEqual(holderAt);
  });
});
