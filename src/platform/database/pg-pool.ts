import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';

/**
 * The process's one PostgreSQL pool. Prisma runs on it (through @prisma/adapter-pg), and the
 * few hottest queries use it directly: on the authenticated list path, Prisma's JavaScript
 * runtime cost about three times the SQL itself (bench/api-list, docs/decisions.md).
 */
@Injectable()
export class PgPool extends Pool implements OnApplicationShutdown {
  constructor(@Inject(CONFIG) config: HeraldConfig) {
    super({ connectionString: config.databaseUrl, max: 10 });
    // An idle connection that PostgreSQL ends (restart, failover, admin kill) emits 'error'
    // on the pool; unheard, it would crash the process. The pool replaces the connection.
    const logger = new Logger(PgPool.name);
    this.on('error', (error) => logger.warn(`idle PostgreSQL connection lost: ${error.message}`));
  }

  // After every module's onModuleDestroy, so Prisma disconnects before its pool ends.
  async onApplicationShutdown(): Promise<void> {
    await this.end();
  }
}
