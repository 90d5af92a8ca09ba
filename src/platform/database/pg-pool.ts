import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { PG_POOL_SIZE } from '../settings';
import type { PgClient } from './db';

/**
 * The longest wait for a free connection. No code holds one connection while it waits for
 * another, so under any load the pool turns over in milliseconds; a wait this long means the
 * database is not answering.
 */
const POOL_WAIT_MS = 4000;

/** How often PostgreSQL checks, while a statement runs, that its client is still connected. */
const CLIENT_CHECK_INTERVAL_MS = 1000;

/**
 * The process's one PostgreSQL pool. Prisma runs on it (through @prisma/adapter-pg), and the
 * few hottest queries use it directly: on the authenticated list path, Prisma's JavaScript
 * runtime cost about three times the SQL itself (bench/api-list, docs/decisions.md).
 */
@Injectable()
export class PgPool extends Pool implements OnApplicationShutdown {
  constructor(@Inject(CONFIG) config: HeraldConfig) {
    super({
      connectionString: config.databaseUrl,
      max: PG_POOL_SIZE,
      // Both are startup parameters of each connection, so no statement sets them. The
      // timeout cancels a statement gone wrong; the check ends a statement whose client has
      // gone (a killed worker): without it, PostgreSQL runs it to the end, however long.
      statement_timeout: config.statementTimeoutMs,
      // A wait for a free connection is bounded too: past it the caller fails as if the
      // database were away (a retry later, a 500 with Retry-After) instead of queueing on.
      connectionTimeoutMillis: POOL_WAIT_MS,
      options: `-c client_connection_check_interval=${CLIENT_CHECK_INTERVAL_MS}`,
    });
    // An idle connection that PostgreSQL ends (restart, failover, admin kill) emits 'error'
    // on the pool; unheard, it would crash the process. The pool replaces the connection.
    const logger = new Logger(PgPool.name);
    this.on('error', (error) => logger.warn(`idle PostgreSQL connection lost: ${error.message}`));
    // A connection lent out (a transaction, Prisma's or ours) has no listener of the pool's
    // while it is out, and its user may be awaiting something else (an SMTP reply) when
    // PostgreSQL goes away: the client then emits 'error' with nobody listening, which ends
    // the process. This listener covers every borrower for as long as it holds the client;
    // the borrower learns of the loss from its next query, which fails.
    const lost = (error: Error) =>
      logger.warn(`PostgreSQL connection lost while in use: ${error.message}`);
    this.on('acquire', (client: PoolClient) => client.on('error', lost));
    this.on('release', (_error: Error | undefined, client: PoolClient) =>
      client.removeListener('error', lost),
    );
  }

  /**
   * Runs `work` in one transaction on one connection: committed if it resolves, rolled back
   * if it throws. For the hot statements that skip Prisma; Prisma code uses `$transaction`.
   */
  async transaction<T>(work: (client: PgClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    // Set when the connection cannot even roll back: released with it, the pool discards it.
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  // After every module's onModuleDestroy, so Prisma disconnects before its pool ends.
  async onApplicationShutdown(): Promise<void> {
    await this.end();
  }
}
