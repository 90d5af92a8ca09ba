import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
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
  }

  // After every module's onModuleDestroy, so Prisma disconnects before its pool ends.
  async onApplicationShutdown(): Promise<void> {
    await this.end();
  }
}
