import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Pool, PoolClient, PoolConfig } from 'pg';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import type { PgClient } from './db';

/**
 * The longest wait for a free connection. No code holds one connection while it waits for
 * another, so under any load the pool turns over in milliseconds; a wait this long means the
 * database is not answering.
 */
const POOL_WAIT_MS = 4000;

/**
 * Connections the pool keeps however long they stay idle (others close after ten idle
 * seconds). A new connection costs a handshake, and its server process starts with empty
 * catalog caches: its first statements take tens of milliseconds to plan instead of a tenth
 * of one. Without a floor, the first request after a quiet spell paid both.
 */
const WARM_CONNECTIONS = 2;

/** How often PostgreSQL checks, while a statement runs, that its client is still connected. */
const CLIENT_CHECK_INTERVAL_MS = 1000;

/**
 * The process's one PostgreSQL pool. Prisma runs on it (through @prisma/adapter-pg), and the
 * few hottest queries use it directly: on the authenticated list path, Prisma's JavaScript
 * runtime cost about three times the SQL itself (bench/api-list, docs/decisions.md).
 */
@Injectable()
export class PgPool extends Pool implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(PgPool.name);

  constructor(@Inject(CONFIG) private readonly config: HeraldConfig) {
    super(poolOptions(config));
    // An idle connection that PostgreSQL ends (restart, failover, admin kill) emits 'error'
    // on the pool; unheard, it would crash the process. The pool replaces the connection.
    const logger = this.logger;
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
   * Behind PgBouncer the statement bound is the server connections' own setting (see
   * poolOptions): say so at start-up when it is missing, since nothing else would. Never holds
   * the boot: a database that is away is the readiness probe's business.
   */
  onModuleInit(): void {
    if (this.config.database.pooler === 'none') return;
    this.query<{ statement_timeout: string }>('SHOW statement_timeout').then(
      ({ rows }) => {
        if (rows[0]?.statement_timeout === '0') {
          this.logger.warn(
            'statement_timeout is 0 on the connections PgBouncer hands out: a runaway statement ' +
              'can hold one for ever. Set it in PgBouncer (connect_query) or on the role ' +
              '(docs/operating.md).',
          );
        }
      },
      () => undefined,
    );
  }

  /**
   * Runs `work` in one transaction on one connection: committed if it resolves, rolled back
   * if it throws. For the hot statements that skip Prisma; Prisma code uses `$transaction`.
   * `opening`, a fixed statement without parameters, is sent with BEGIN in the same round trip.
   */
  async transaction<T>(work: (client: PgClient) => Promise<T>, opening?: string): Promise<T> {
    const client = await this.connect();
    // Set when the connection cannot even roll back: released with it, the pool discards it.
    let broken: Error | undefined;
    try {
      await client.query(opening === undefined ? 'BEGIN' : `BEGIN; ${opening}`);
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

/**
 * The pool's settings. Straight to PostgreSQL, the statement timeout and the client check are
 * startup parameters of each connection, so no statement sets them: the timeout cancels a
 * statement gone wrong; the check ends a statement whose client has gone (a killed worker),
 * which PostgreSQL would otherwise run to the end, however long.
 *
 * Behind PgBouncer in transaction mode there is no session of ours to set them on: PgBouncer
 * 1.18 refuses unknown startup parameters (or, told to ignore them, drops them), and a `SET`
 * would stay on a server connection that PgBouncer hands to other clients next. Not even
 * `SET LOCAL`: it would wrap every statement in BEGIN/COMMIT (three round trips for one, and
 * Prisma's single statements cannot be wrapped). The same values are then the server
 * connections' own, set once for all of them (PgBouncer's connect_query, or ALTER ROLE):
 * uniform settings leak nothing from one client to another.
 */
export function poolOptions(config: HeraldConfig): PoolConfig {
  const common: PoolConfig = {
    connectionString: config.databaseUrl,
    max: config.database.poolSize,
    min: Math.min(WARM_CONNECTIONS, config.database.poolSize),
    // A wait for a free connection is bounded too: past it the caller fails as if the
    // database were away (a retry later, a 500 with Retry-After) instead of queueing on.
    connectionTimeoutMillis: POOL_WAIT_MS,
  };
  if (config.database.pooler !== 'none') return common;
  return {
    ...common,
    statement_timeout: config.statementTimeoutMs,
    options: `-c client_connection_check_interval=${CLIENT_CHECK_INTERVAL_MS}`,
  };
}
