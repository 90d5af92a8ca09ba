import { Global, Inject, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';

/**
 * The shared Redis connection for everything but BullMQ (which manages its own). Every key
 * it writes starts with QUEUE_PREFIX, so several installations can share one Redis.
 */
@Injectable()
export class RedisService extends Redis implements OnModuleDestroy {
  constructor(@Inject(CONFIG) config: HeraldConfig) {
    super(config.redisUrl, { keyPrefix: `${config.queuePrefix}:`, maxRetriesPerRequest: 2 });
  }

  async onModuleDestroy(): Promise<void> {
    await this.quit().catch(() => this.disconnect());
  }
}

@Global()
@Module({ providers: [RedisService], exports: [RedisService] })
export class RedisModule {}
