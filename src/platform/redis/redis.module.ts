import { Global, Inject, Injectable, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { REDIS_READY_WAIT_MS } from '../settings';
import { reportRedisError } from './redis-outage-log';

/**
 * The shared Redis connection for everything but BullMQ (which manages its own). Every key
 * it writes starts with QUEUE_PREFIX, so several installations can share one Redis.
 */
@Injectable()
export class RedisService extends Redis implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(CONFIG) config: HeraldConfig) {
    // No offline queue: while Redis is away a command fails at once, so the rate limiter
    // falls back to its in-memory count and /health answers 503, instead of both waiting for
    // reconnects while the request hangs.
    // Built only when REDIS_URL is set (StoreModule).
    super(config.redisUrl ?? '', {
      keyPrefix: `${config.queuePrefix}:`,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: false,
      // Commands issued in the same turn of the event loop leave in one write and come back
      // in one read. Under load that is most of them: every /v1 request counts itself on the
      // rate limiter here, and concurrent requests share the round trip (bench/api-list).
      enableAutoPipelining: true,
    });
    this.on('error', (error) => reportRedisError('the shared client', error));
  }

  /**
   * Without an offline queue a command sent before the first connection is up fails; wait for
   * it briefly at start-up, but never hold the boot when Redis is away.
   */
  async onModuleInit(): Promise<void> {
    if (this.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, REDIS_READY_WAIT_MS);
      this.once('ready', done);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.quit().catch(() => this.disconnect());
  }
}

@Global()
@Module({ providers: [RedisService], exports: [RedisService] })
export class RedisModule {}
