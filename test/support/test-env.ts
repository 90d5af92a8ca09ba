import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Scope, SCOPES } from '../../src/auth/scopes';
import { AppOptions } from '../../src/app.module';
import { createHttpApp } from '../../src/http-app';
import { HeraldConfig, loadConfig } from '../../src/platform/config/config';
import { migrate } from '../../src/platform/database/migrator';
import { PrismaService } from '../../src/platform/database/prisma.service';
import { watchResponses } from './contract/contract-watch';
import { ResponseContract } from './contract/response-contract';
import { Factories, Tenant } from './factories';
import { waitFor } from './wait-for';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';
import { deleteRedisKeys, registerEnv } from './test-env-registry';

const SERVER_URL = process.env.TEST_DATABASE_SERVER ?? 'postgresql://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * TEST_STORE=postgresql (the e2e-postgres-store project sets it): the Herald under test runs
 * with REDIS_URL unset, its queues, rate limits and locks in PostgreSQL, as an installation on
 * a bare machine does. Otherwise it uses the shared Redis. Either way the harness names both
 * servers explicitly, whatever Herald's defaults are.
 */
export const POSTGRES_STORE = process.env.TEST_STORE === 'postgresql';
/**
 * A PgBouncer in transaction mode forwarding every database to the shared server
 * (`npm run test:pgbouncer` starts one): the app's pool then goes through it, as
 * DATABASE_POOLER=pgbouncer, while migrations and the tests' own SQL go straight.
 */
const PGBOUNCER_URL = process.env.TEST_PGBOUNCER_URL;

/** Where a TestEnv lives, when not on the shared servers (a throwaway one of a fault test). */
export interface TestEnvPlace {
  /** A PostgreSQL server URL without database (default: TEST_DATABASE_SERVER or 5432). */
  databaseServer?: string;
  /** REDIS_URL: a server, or a Sentinel group (`redis+sentinel://…`). */
  redisUrl?: string;
  /** REDIS_CLUSTER_NODES: a Redis Cluster of the test's own. */
  redisClusterNodes?: string;
  /** false: the database is left empty, for a test that migrates it itself. */
  migrate?: boolean;
}

/**
 * One isolated Herald per test file: its own PostgreSQL database and Redis key prefix, so
 * files run in parallel and leave nothing behind (dispose() drops both).
 */
export class TestEnv {
  private constructor(
    readonly config: HeraldConfig,
    readonly databaseName: string,
    private readonly databaseServer: string,
    /** Where this env's Redis keys live: not config.redisUrl, which may point at nothing. */
    readonly redisServer: string,
  ) {}

  static async create(
    overrides: Record<string, string> = {},
    {
      databaseServer = SERVER_URL,
      redisUrl = REDIS_URL,
      redisClusterNodes,
      migrate: migrated = true,
    }: TestEnvPlace = {},
  ): Promise<TestEnv> {
    const suffix = randomBytes(5).toString('hex');
    const databaseName = `herald_test_${suffix}`;
    const direct = `${databaseServer}/${databaseName}`;
    const pooled =
      PGBOUNCER_URL && databaseServer === SERVER_URL
        ? {
            DATABASE_URL: `${PGBOUNCER_URL}/${databaseName}`,
            DATABASE_DIRECT_URL: direct,
            DATABASE_POOLER: 'pgbouncer',
          }
        : { DATABASE_URL: direct };
    const config = loadConfig({
      ...pooled,
      // A test that brings a Redis of its own (a fault test) is about Redis.
      REDIS_URL: POSTGRES_STORE && redisUrl === REDIS_URL ? undefined : redisUrl,
      ...(redisClusterNodes ? { REDIS_CLUSTER_NODES: redisClusterNodes } : {}),
      QUEUE_PREFIX: `herald-test-${suffix}`,
      HERALD_SECRET: `test-secret-${suffix}-${randomBytes(16).toString('hex')}`,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      OUTBOX_DIR: `var/test-outbox/${suffix}`,
      // Many tests sign several people up; the sign-up modes have their own tests.
      SIGNUP: 'open',
      // Every test client is 127.0.0.1; the per-address limit has its own test.
      RATE_LIMIT_ANONYMOUS: '100000',
      RATE_LIMIT_MAIL_AGENTS: '100000',
      ...overrides,
    });
    const env = new TestEnv(config, databaseName, databaseServer, redisUrl);
    // Checked at the run's end: its processes, and what it has on the shared servers (a
    // throwaway server goes with everything on it).
    const pattern = redisUrl === REDIS_URL ? env.keyPattern : undefined;
    registerEnv({
      queuePrefix: config.queuePrefix,
      ...(databaseServer === SERVER_URL
        ? { database: { server: databaseServer, name: databaseName } }
        : {}),
      ...(pattern ? { redis: { server: redisUrl, pattern } } : {}),
    });
    if (migrated) await migrate(config.database.directUrl);
    return env;
  }

  /**
   * The pattern of this env's keys on a single Redis server; undefined when it uses none, or a
   * Sentinel group's or a Cluster's, which go with the servers a fault test throws away.
   */
  get keyPattern(): string | undefined {
    if (this.config.redis?.kind !== 'single') return undefined;
    return `${hashTaggedPrefix(this.config.queuePrefix)}:*`;
  }

  /**
   * Deletes every Redis key under this env's prefix: like a Redis that restarted empty, for
   * this Herald only (other suites share the server).
   */
  async flushRedis(): Promise<void> {
    if (this.keyPattern) await deleteRedisKeys(this.redisServer, this.keyPattern);
  }

  /** Drops the database and every Redis key under this env's prefix. */
  async dispose(): Promise<void> {
    const admin = new Client({ connectionString: `${this.databaseServer}/postgres` });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${this.databaseName}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    await this.flushRedis();
  }

  /**
   * Waits until a statement of this database whose text is LIKE `statementLike` waits for a
   * lock: the moment a test that holds the lock on purpose has the other side queued behind it.
   */
  async waitForLockWaiter(statementLike: string, message: string): Promise<void> {
    await waitFor(async () => (await this.lockWaiters(statementLike)) === 1, { message });
  }

  /**
   * Which comes first: `work` settling ('settled'), or a statement of this database whose text
   * is LIKE `statementLike` seen waiting for a lock (`waiting`, the test's words for what it
   * waits on). For a test that holds a lock on purpose and asks whether `work` must wait for
   * it. `work` goes on either way: the caller awaits it once it has let go of what it holds.
   */
  async settledOrWaiting(
    work: Promise<unknown>,
    statementLike: string,
    waiting: string,
  ): Promise<string> {
    let settled = false;
    const markSettled = () => (settled = true);
    work.then(markSettled, markSettled);
    return waitFor(async () => {
      if (settled) return 'settled';
      return (await this.lockWaiters(statementLike)) > 0 && waiting;
    });
  }

  /** How many statements of this database whose text is LIKE `statementLike` wait for a lock. */
  private async lockWaiters(statementLike: string): Promise<number> {
    const waiters = await this.sql(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
          AND wait_event_type = 'Lock' AND query LIKE $1`,
      [statementLike],
    );
    return waiters.length;
  }

  async sql<T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.config.database.directUrl });
    await client.connect();
    try {
      return (await client.query<T>(text, params)).rows;
    } finally {
      await client.end();
    }
  }
}

/** A running API for a TestEnv, plus one-line factories for the rows tests start from. */
export class TestApi {
  /** Accounts, keys, subscribers, templates, segments, campaigns: see Factories. */
  readonly make: Factories;

  private constructor(readonly app: NestFastifyApplication) {
    this.make = new Factories(app);
  }

  /** `workers: false` is `--api-only`: nothing in this process consumes queued jobs. */
  static async start(env: TestEnv, options: AppOptions = { workers: true }): Promise<TestApi> {
    const app = await createHttpApp(env.config, options);
    // Every answer of this app is checked against the document it serves (contract-watch.ts).
    const served = await app.inject({ method: 'GET', url: '/openapi.json' });
    watchResponses(app.getHttpServer(), new ResponseContract(served.json()));
    return new TestApi(app);
  }

  get server() {
    return this.app.getHttpServer();
  }

  get prisma(): PrismaService {
    return this.app.get(PrismaService);
  }

  account(name = 'Acme'): Promise<string> {
    return this.make.account(name);
  }

  key(accountId: string, scopes: readonly Scope[] = SCOPES): Promise<{ id: string; key: string }> {
    return this.make.key(accountId, scopes);
  }

  /** An account with a key holding every scope: `Authorization` header ready to use. */
  tenant(name = 'Acme'): Promise<Tenant> {
    return this.make.tenant(name);
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}
