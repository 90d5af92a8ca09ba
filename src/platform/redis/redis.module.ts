import { Global, Inject, Injectable, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ChainableCommander, RedisCommander } from 'ioredis';
import type { EventEmitter } from 'node:events';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { REDIS_READY_WAIT_MS } from '../settings';
import { commandKeyPrefix, createRedisClient, RedisClient } from './redis-clients';
import { reportStoreError } from '../logging/store-outage-log';

/**
 * The shared Redis client for everything but BullMQ (which makes its own): rate limits, locks
 * and caches. One server, a Sentinel group or a Cluster alike (REDIS_URL, REDIS_CLUSTER_NODES),
 * with the commands both kinds of client have. Every key it writes starts with `{QUEUE_PREFIX}:`,
 * so several installations can share one Redis, and all of them sit in one Cluster slot.
 *
 * No offline queue: while Redis is away a command fails at once, so the rate limiter falls
 * back to its in-memory count and /health answers 503, instead of both waiting for reconnects
 * while the request hangs.
 */
// The class is the injection token; the interface gives it what Redis and Cluster clients share.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface RedisService
  extends
    RedisCommander<{ type: 'default'; mapping: 'resp2' }>,
    Pick<EventEmitter, 'on' | 'once' | 'off'> {
  readonly status: RedisClient['status'];
  pipeline(): ChainableCommander;
  multi(): ChainableCommander;
  quit(): Promise<'OK'>;
  disconnect(): void;
}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class RedisService {}

/** Opens the shared client with the process, and closes it with the process. */
@Injectable()
class SharedRedisLifecycle implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(RedisService) private readonly client: RedisService) {}

  /**
   * Without an offline queue a command sent before the first connection is up fails; wait for
   * it briefly at start-up, but never hold the boot when Redis is away.
   */
  onModuleInit(): Promise<void> {
    return readyOrLater(this.client);
  }

  async onModuleDestroy(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** The shared client of this configuration (tests open their own with it, too). */
export function openSharedRedis(config: HeraldConfig): RedisService {
  // StoreModule imports this module only when Redis is configured.
  if (!config.redis)
    throw new Error('the shared Redis client needs REDIS_URL or REDIS_CLUSTER_NODES');
  const client = createRedisClient(config.redis, 'commands', {
    keyPrefix: commandKeyPrefix(config.queuePrefix),
  });
  client.on('error', (error: Error) => reportStoreError('the shared client', error));
  return client;
}

/** Resolves when the client is connected, or after REDIS_READY_WAIT_MS if it is not by then. */
export async function readyOrLater(client: RedisService): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, REDIS_READY_WAIT_MS);
    client.once('ready', done);
  });
}

@Global()
@Module({
  providers: [
    {
      provide: RedisService,
      inject: [CONFIG],
      useFactory: openSharedRedis,
    },
    SharedRedisLifecycle,
  ],
  exports: [RedisService],
})
export class RedisModule {}
