import { Logger } from '@nestjs/common';
import {
  quoteSchemaName,
  runMigrations,
  SchemaVersionMismatchError,
  UnsupportedPostgresVersionError,
} from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PgPool, PgPoolClient, PgQueryResult } from 'bullmq';
import { Client, Pool, QueryResultRow } from 'pg';
import { doublingDelay } from '../timing/doubling-delay';
import {
  QUEUE_QUERY_CONNECTIONS,
  QUEUE_SCHEMA,
  QUEUE_STORE_RETRY_FIRST_MS,
  QUEUE_STORE_RETRY_MAX_MS,
} from './store.settings';

/**
 * The one pg pool behind every BullMQ Queue and Worker of a process on the PostgreSQL store.
 *
 * Left to itself, BullMQ's PostgreSQL backend gives each Queue and each Worker a pool of its
 * own, and each Worker a LISTEN connection besides: a worker process with five queues held
 * about twenty connections for its queues alone, beside its own pool, so an API and two
 * workers came near PostgreSQL's default max_connections of 100. Given a pool, BullMQ shares
 * it instead: each Worker checks its LISTEN connection out of it, and every query runs
 * through it.
 *
 * A LISTEN connection stays checked out for the Worker's life, so the pool's size is a few
 * connections for queries plus one for each backend that listens: however many Workers the
 * process runs, they cannot take the last query connection and stall each other.
 *
 * Nothing goes through the pool before BullMQ's schema is in place (queueSchemaReady): a
 * backend's first use then waits for PostgreSQL instead of failing.
 */
export class QueuePool {
  private readonly pool: Pool;
  private leases = 0;

  constructor(
    private readonly connectionString: string,
    private readonly onUnused: () => void,
  ) {
    this.pool = new Pool({
      connectionString,
      max: QUEUE_QUERY_CONNECTIONS,
      keepAlive: true,
      // BullMQ's statements name their tables without a schema.
      options: `-c search_path=${quoteSchemaName(QUEUE_SCHEMA)}`,
      // A Queue never closed (a process ending without its shutdown hooks) cannot keep the
      // process alive through idle connections.
      allowExitOnIdle: true,
    });
    // Each Queue and Worker hears the pool's errors through a listener of its own: more than
    // EventEmitter's default of ten is expected.
    this.pool.setMaxListeners(0);
    // An idle connection that PostgreSQL ends emits 'error' on the pool, and unheard it would
    // end the process: this hears one that comes while no Queue or Worker is listening.
    this.pool.on('error', () => undefined);
  }

  /**
   * What one backend (a Queue's, a Worker's) is given as its pool, for as long as it lives:
   * `listens` when it holds a LISTEN connection, which grows the pool by one meanwhile. The
   * last lease to end closes the pool's connections.
   */
  lease(listens: boolean): QueuePoolLease {
    this.leases++;
    if (listens) this.pool.options.max++;
    return new QueuePoolLease(this, () => {
      this.leases--;
      if (listens) this.pool.options.max--;
      if (this.leases === 0) {
        this.onUnused();
        void this.pool.end().catch(() => undefined);
      }
    });
  }

  async connect(): Promise<PgPoolClient> {
    await queueSchemaReady(this.connectionString);
    return this.pool.connect();
  }

  async query<R = unknown>(text: string, params?: readonly unknown[]): Promise<PgQueryResult<R>> {
    await queueSchemaReady(this.connectionString);
    return this.pool.query<R & QueryResultRow>(text, params as unknown[]);
  }

  listen(event: 'error' | 'connect', listener: (value: never) => void): void {
    // An EventEmitter's: pg's typings only split it into one overload per event.
    this.pool.on(event as 'error', listener as (err: Error) => void);
  }

  unlisten(event: 'error' | 'connect', listener: (value: never) => void): void {
    this.pool.off(event, listener as (err: Error) => void);
  }
}

/**
 * One backend's view of the shared pool, which BullMQ takes for a pool of its own. BullMQ
 * never removes the listeners it puts on a pool it was given, so the view keeps them and
 * takes them off when its backend closes: a closed Queue or Worker hears no more errors.
 */
export class QueuePoolLease implements PgPool {
  /** Read by BullMQ: a LISTEN connection from a keep-alive pool may block for long. */
  readonly options = { keepAlive: true };
  private listeners: ['error' | 'connect', (value: never) => void][] = [];
  private released = false;

  constructor(
    private readonly shared: QueuePool,
    private readonly onRelease: () => void,
  ) {}

  connect(): Promise<PgPoolClient> {
    return this.shared.connect();
  }

  query<R = unknown>(text: string, params?: readonly unknown[]): Promise<PgQueryResult<R>> {
    return this.shared.query<R>(text, params);
  }

  /** BullMQ never ends a pool it was given; release does, with the last lease. */
  async end(): Promise<void> {}

  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'connect', listener: (client: PgPoolClient) => void): this;
  on(event: 'error' | 'connect', listener: (value: never) => void): this {
    this.listeners.push([event, listener]);
    this.shared.listen(event, listener);
    return this;
  }

  removeAllListeners(event?: string): this {
    const kept: typeof this.listeners = [];
    for (const heard of this.listeners) {
      if (event === undefined || heard[0] === event) this.shared.unlisten(...heard);
      else kept.push(heard);
    }
    this.listeners = kept;
    return this;
  }

  /** Its backend closed: its listeners go, and the shared pool may end. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.removeAllListeners();
    this.onRelease();
  }
}

const logger = new Logger('QueueStore');
const schemasReady = new Map<string, Promise<void>>();

/**
 * Resolves once BullMQ's schema in this database is created and current, waiting for
 * PostgreSQL as long as it takes. BullMQ upgrades its schema only in pools it made itself, so
 * this runs its migrations (on one session, under BullMQ's advisory lock: any number of
 * processes starting at once is safe). And BullMQ keeps a backend's first failed readiness
 * check for good: a Queue or Worker whose first use met PostgreSQL away would never recover,
 * so that first use waits here instead, and a process that starts during an outage works
 * once it ends. The wait holds no timer that keeps a closing process alive.
 */
export function queueSchemaReady(connectionString: string): Promise<void> {
  let ready = schemasReady.get(connectionString);
  if (!ready) {
    ready = migrateWhenReachable(connectionString).catch((error: unknown) => {
      schemasReady.delete(connectionString);
      throw error;
    });
    schemasReady.set(connectionString, ready);
  }
  return ready;
}

let stopWaits = new AbortController();

/**
 * Ends the waits for PostgreSQL under way: what waited fails. A worker closing while its
 * queues wait calls it, or its close would wait for PostgreSQL too. A later use waits anew.
 */
export function stopWaitingForQueueStore(): void {
  stopWaits.abort(new Error('the queues stopped waiting for PostgreSQL: the process is closing'));
  stopWaits = new AbortController();
}

async function migrateWhenReachable(connectionString: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const pause = doublingDelay(attempt, QUEUE_STORE_RETRY_FIRST_MS, QUEUE_STORE_RETRY_MAX_MS);
    const client = new Client({
      connectionString,
      connectionTimeoutMillis: QUEUE_STORE_RETRY_MAX_MS,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await runMigrations(client, QUEUE_SCHEMA);
      return;
    } catch (error) {
      // A schema newer than this BullMQ, or a PostgreSQL too old for it, will not change by waiting.
      if (error instanceof SchemaVersionMismatchError) throw error;
      if (error instanceof UnsupportedPostgresVersionError) throw error;
      logger.warn(`queues wait for PostgreSQL (${String(error)}); next try in ${pause} ms`);
    } finally {
      await client.end().catch(() => undefined);
    }
    const signal = stopWaits.signal;
    await sleep(pause, undefined, { ref: false, signal }).catch(() => {
      throw signal.reason as Error;
    });
  }
}
