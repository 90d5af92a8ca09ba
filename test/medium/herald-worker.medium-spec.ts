import { BullModule, getQueueToken, Processor, WorkerHost } from '@nestjs/bullmq';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue, RedisClient } from 'bullmq';
import { ConfigModule } from '../../src/platform/config/config.module';
import { FETCH_RETRY_FIRST_MS, HeraldWorker } from '../../src/platform/queue/herald-worker';
import { QueueModule } from '../../src/platform/queue/queue.module';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';
import { REDIS_RECONNECT_MAX_MS } from '../../src/platform/settings';
import { TestEnv } from '../support/test-env';
import { ThrowawayRedis } from '../support/throwaway-redis';
import { ThrowawaySentinelGroup } from '../support/throwaway-sentinel';
import { waitFor } from '../support/wait-for';

const QUEUE = 'connection-probe';

/** A processor as Herald's are made: @nestjs/bullmq builds its worker from the root options. */
@Processor(QUEUE)
class ConnectionProbe extends WorkerHost {
  process(): Promise<void> {
    return Promise.resolve();
  }
}

@Module({})
class ProbeModule {}

/**
 * The Redis clients behind a processor's BullMQ Worker and behind a Queue, as Herald's own
 * module graph builds them (QueueModule's root options, @nestjs/bullmq's explorer, BullMQ's
 * backend and its client factory hook) against a real Sentinel group: each keeps the settings
 * of its role once BullMQ has made it.
 */
describe('the Redis connections of a BullMQ Worker and of a Queue, behind Sentinel', () => {
  let group: ThrowawaySentinelGroup;
  let env: TestEnv;
  let app: INestApplicationContext;
  let worker: HeraldWorker;
  let queue: Queue;

  beforeAll(async () => {
    group = await ThrowawaySentinelGroup.start();
    env = await TestEnv.create({}, { redisUrl: group.url, migrate: false });
    app = await NestFactory.createApplicationContext(
      {
        module: ProbeModule,
        imports: [
          ConfigModule.forRoot(env.config),
          QueueModule,
          BullModule.registerQueue({ name: QUEUE }),
        ],
        providers: [ConnectionProbe],
      },
      { logger: false },
    );
    worker = app.get(ConnectionProbe).worker as HeraldWorker;
    queue = app.get<Queue>(getQueueToken(QUEUE));
    await worker.waitUntilReady();
    await queue.waitUntilReady();
  }, 120_000);

  afterAll(async () => {
    // ioredis ends a Sentinel client's failover detector (its own clients of the sentinels)
    // on disconnect but not on QUIT, which a graceful close sends: disconnect first, or those
    // clients go on reconnecting to the sentinels after they are gone and Jest never exits.
    await worker?.close(true);
    await queue?.disconnect();
    await app?.close();
    await env?.dispose();
    await group?.dispose();
  });

  it('makes every processor worker a HeraldWorker', () => {
    expect(worker).toBeInstanceOf(HeraldWorker);
  });

  it.each([
    ['main (fetches, lock renewals, completions)', () => worker.getBackend().client],
    ['blocking (waits for the next job)', () => worker.getBackend().blockingClient!],
  ])(
    "gives the worker's %s connection the worker role: waits through an outage and follows a promotion",
    async (_name, client: () => Promise<RedisClient>) => {
      const options = (await client()).options;
      expect(options).toMatchObject({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        failoverDetector: true,
      });
      expect(reconnectsForever(options)).toBe(true);
    },
  );

  it("keeps a producer's fail-fast settings on the queue's connection", async () => {
    const options = (await queue.getBackend().client).options;
    expect(options).toMatchObject({
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      failoverDetector: true,
    });
    expect(reconnectsForever(options)).toBe(true);
  });
});

/**
 * A fetch of the next job that fails at once, on a connection that refuses commands while it
 * reconnects: BullMQ would retry it without yielding to the event loop, so nothing else in the
 * process (the reconnect included) would ever run again. HeraldWorker pauses between attempts.
 */
describe('a HeraldWorker whose fetches fail', () => {
  /** Failed fetches observed before the verdict; a worker that spins reaches this at once. */
  const OBSERVED = 5;
  /** More failures than a backing-off worker makes in this test: stop a spinning one. */
  const SPINNING = 100;
  let redis: ThrowawayRedis;
  let worker: HeraldWorker;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
  });

  afterAll(async () => {
    await worker?.close(true);
    await redis?.dispose();
  });

  it('pauses before each next attempt, and takes jobs again once Redis is back', async () => {
    const prefix = hashTaggedPrefix(`herald-worker-${process.pid}`);
    // Not Herald's options (workerConnection leaves them alone): a client that fails while
    // it reconnects, as a worker's main connection was with a producer's settings.
    const connection = { host: '127.0.0.1', port: redis.port, enableOfflineQueue: false };
    const processed: string[] = [];
    worker = new HeraldWorker(
      QUEUE,
      (job) => {
        processed.push(job.name);
        return Promise.resolve();
      },
      // Only the fetch talks to Redis here: no stalled-job checks, no lock renewals.
      { connection, prefix, autorun: false, skipStalledCheck: true, skipLockRenewal: true },
    );
    const failedAt: number[] = [];
    let watching = true;
    worker.on('error', (error) => {
      if (!watching || !error.message.startsWith("Stream isn't writeable")) return;
      failedAt.push(performance.now());
      if (failedAt.length === SPINNING) void worker.close(true);
    });
    await worker.waitUntilReady();
    const main = await worker.getBackend().client;
    await redis.crash();
    await waitFor(() => main.status !== 'ready', { timeoutMs: 10_000, intervalMs: 20 });

    worker.run().catch(() => undefined);
    await waitFor(() => failedAt.length >= OBSERVED, { timeoutMs: 30_000, intervalMs: 20 });
    watching = false;
    const gaps = failedAt.slice(1, OBSERVED).map((at, n) => at - failedAt[n]);
    // Timers never fire early by more than their millisecond rounding; load only adds.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(FETCH_RETRY_FIRST_MS - 1);

    await redis.restart();
    const producer = new Queue(QUEUE, {
      connection: { host: '127.0.0.1', port: redis.port },
      prefix,
    });
    try {
      await producer.add('after the outage', {});
      await waitFor(() => processed.includes('after the outage'), {
        timeoutMs: 30_000,
        intervalMs: 50,
      });
    } finally {
      await producer.close();
    }
  }, 90_000);
});

/** Whether the client's reconnect strategy still answers with a delay after many attempts. */
function reconnectsForever(options: RedisClient['options']): boolean {
  const delay = (options.retryStrategy as (attempt: number) => number | null)(1_000);
  return typeof delay === 'number' && delay <= REDIS_RECONNECT_MAX_MS;
}
