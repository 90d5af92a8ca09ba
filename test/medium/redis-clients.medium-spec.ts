import { once } from 'node:events';
import { Redis } from 'ioredis';
import { parseRedis } from '../../src/platform/config/redis-config';
import { createRedisClient, RedisClient } from '../../src/platform/redis/redis-clients';
import { ThrowawaySentinelGroup } from '../support/throwaway-sentinel';
import { waitFor } from '../support/wait-for';

/**
 * A client of createRedisClient behind a real Sentinel group, at a promotion that comes while
 * the client is still asking a slow sentinel for the master: its failover detector drops the
 * connection under the question, which ioredis answers by giving the client up for good
 * ("Connection is closed.", status `end`). Herald's client connects again.
 */
describe('a Sentinel client at a promotion during its search for the master', () => {
  let group: ThrowawaySentinelGroup;
  let client: RedisClient | undefined;
  let watcher: Redis | undefined;

  beforeAll(async () => {
    group = await ThrowawaySentinelGroup.start();
  }, 120_000);

  afterAll(async () => {
    client?.disconnect();
    watcher?.disconnect();
    await group?.dispose();
  });

  it('connects again instead of ending for good', async () => {
    client = createRedisClient(parseRedis({ REDIS_URL: group.url })!, 'worker');
    const errors: string[] = [];
    client.on('error', (error: Error) => errors.push(error.message));
    await client.set('key', 'value');
    // The promotion as the failover detector hears it, from a sentinel that still answers.
    watcher = new Redis(group.sentinelPorts[1], '127.0.0.1');
    await watcher.subscribe('+switch-master');
    const switched = once(watcher, 'message');

    // The client reconnects through the first sentinel, which now answers nothing.
    const old = await group.killPrimary();
    group.freezeSentinel(0);
    await group.promotedAfter(old, 1);
    await switched;
    group.thawSentinel(0);

    // What ioredis does then: the search ends in "Connection is closed." and the client ends.
    await waitFor(() => errors.includes('Connection is closed.'), {
      timeoutMs: 30_000,
      intervalMs: 20,
      message: 'the failover detector never dropped the connection during the search',
    });
    const live = client;
    await waitFor(async () => (await live.get('key').catch(() => null)) === 'value', {
      timeoutMs: 30_000,
      intervalMs: 100,
      message: () => `the client stayed ${live.status}`,
    });
    expect(client.status).toBe('ready');
  }, 120_000);
});
