import { DynamicModule, Global, Logger, Module, OnModuleInit } from '@nestjs/common';
import { HeraldConfig } from '../config/config';
import { RedisModule } from '../redis/redis.module';
import { PostgresStore, PostgresStoreSweeper } from './postgres-store';
import { RedisStore } from './redis-store';
import { SharedStore } from './shared-store';

/**
 * Provides SharedStore: Redis when REDIS_URL or REDIS_CLUSTER_NODES is set, PostgreSQL otherwise. Only one of the
 * two is built, so a process without REDIS_URL never opens a connection to Redis.
 */
@Global()
@Module({})
export class StoreModule implements OnModuleInit {
  constructor(private readonly store: SharedStore) {}

  /** The start log says which store this process uses. */
  onModuleInit(): void {
    new Logger('SharedStore').log(
      this.store.kind === 'Redis'
        ? 'queues, rate limits and locks in Redis (REDIS_URL)'
        : 'queues, rate limits and locks in PostgreSQL (REDIS_URL unset)',
    );
  }

  static forRoot(config: HeraldConfig): DynamicModule {
    const store = config.redis
      ? { imports: [RedisModule], providers: [RedisStore], use: RedisStore }
      : { imports: [], providers: [PostgresStore, PostgresStoreSweeper], use: PostgresStore };
    return {
      module: StoreModule,
      imports: store.imports,
      providers: [...store.providers, { provide: SharedStore, useExisting: store.use }],
      exports: [SharedStore],
    };
  }
}
