import {
  RedisConnection,
  createIORedisClient,
  type RedisOptions as BullRedisOptions,
} from 'bullmq';
import { Callback, Cluster, ClusterOptions, Redis, RedisOptions, Result } from 'ioredis';
import { RedisTarget } from '../config/redis-config';
import { REDIS_RECONNECT_FIRST_MS, REDIS_RECONNECT_MAX_MS } from '../settings';
import { doublingDelay } from '../timing/doubling-delay';

/** A client of Herald's Redis, whatever its kind: one server or Sentinel (Redis), or a Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * What a client is for; each follows BullMQ's production guidance for its kind of work:
 * - `worker`: a BullMQ worker's connections. A command waits through an outage or a failover
 *   for as long as it takes (no per-command retry limit, commands queued while offline), so
 *   a worker never gives up on Redis and resumes by itself.
 * - `producer`: a BullMQ queue that adds jobs (the API, a fan-out). It fails at once while Redis
 *   is away: what it adds is already committed in PostgreSQL, and a sweep or watchdog adds it
 *   again later, so nothing waits on a Redis that is not there.
 * - `commands`: the shared client of rate limits, locks and caches: fails fast like a producer,
 *   under the installation's key prefix, with the commands of one event-loop turn pipelined.
 * Every kind reconnects forever, at most REDIS_RECONNECT_MAX_MS apart.
 */
export type RedisRole = 'worker' | 'producer' | 'commands';

export interface RedisClientOptions {
  /** Prefix of every key (not for BullMQ, which prefixes its own keys). */
  keyPrefix?: string;
  /** Connect at the first command instead of at once. */
  lazyConnect?: boolean;
  /** CLIENT SETNAME, as BullMQ names its connections. */
  connectionName?: string;
}

/**
 * Every Herald key starts with the installation's QUEUE_PREFIX inside one hash tag: `{herald}`.
 * On a Redis Cluster all of them then hash to one slot, so BullMQ's scripts and Herald's own
 * multi-key commands (each touching several keys of a queue, or several buckets) never meet
 * CROSSSLOT; on one server or behind Sentinel the braces are just part of the name.
 */
export function hashTaggedPrefix(queuePrefix: string): string {
  return `{${queuePrefix}}`;
}

/** The prefix of Herald's own keys (not BullMQ's), for the shared client and for tools. */
export function commandKeyPrefix(queuePrefix: string): string {
  return `${hashTaggedPrefix(queuePrefix)}:`;
}

/** The one place Herald builds Redis clients: for `role`, at `target`. */
export function createRedisClient(
  target: RedisTarget,
  role: RedisRole,
  options: RedisClientOptions = {},
): RedisClient {
  const connection = connectionOptions(role, options);
  switch (target.kind) {
    case 'single':
      return new HeraldRedis(target.url, { ...connection, retryStrategy: reconnectDelay });
    case 'sentinel':
      return new HeraldRedis({
        ...connection,
        sentinels: target.sentinels,
        name: target.masterName,
        db: target.db,
        username: target.username,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
        tls: target.tls ? {} : undefined,
        enableTLSForSentinelMode: target.tls,
        // Sentinel announces a promotion (+switch-master): reconnect to the new master then,
        // rather than when the old one's connections time out.
        failoverDetector: true,
        retryStrategy: reconnectDelay,
      });
    case 'cluster': {
      const { enableOfflineQueue, enableAutoPipelining, lazyConnect, ...perNode } = connection;
      const clusterOptions: ClusterOptions = {
        enableOfflineQueue,
        enableAutoPipelining,
        lazyConnect,
        clusterRetryStrategy: reconnectDelay,
        redisOptions: {
          ...perNode,
          username: target.username,
          password: target.password,
          tls: target.tls ? {} : undefined,
        },
      };
      return new Cluster(target.nodes, clusterOptions);
    }
  }
}

/** Options of a client answering as RESP2 does (the only way Herald and BullMQ use them). */
type LegacyReplies = RedisOptions & { replyMapping?: 'legacy' };

/**
 * ioredis gives a client up for good when its connection is dropped while it is still finding
 * its server: what it had queued fails with "Connection is closed.", its status becomes `end`,
 * and nothing reconnects it. Behind Sentinel that happens at a promotion whenever the failover
 * detector drops the connection while the client is still asking a slow sentinel for the
 * master (a busy machine); the client then fails every command until the process restarts.
 * A client that nobody closed (quit, disconnect) is connected again instead, at once the
 * first time and then at the usual reconnect delays.
 */
class HeraldRedis extends Redis {
  private closedByOwner: boolean;
  private unaskedEnds: number;

  /** A server's URL and options, or options naming the sentinels. */
  constructor(target: string | LegacyReplies, options: LegacyReplies = {}) {
    if (typeof target === 'string') super(target, options);
    else super(target);
    this.closedByOwner = false;
    this.unaskedEnds = 0;
    this.on('ready', () => (this.unaskedEnds = 0));
    this.on('end', () => {
      if (this.closedByOwner) return;
      const delay = this.unaskedEnds++ === 0 ? 0 : reconnectDelay(this.unaskedEnds);
      setTimeout(() => {
        if (!this.closedByOwner && this.status === 'end') this.connect().catch(() => undefined);
      }, delay);
    });
  }

  override quit(callback?: Callback<'OK'>): Result<'OK', { type: 'default' }> {
    this.closedByOwner = true;
    return super.quit(callback);
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.closedByOwner = true;
    super.disconnect(reconnect);
  }
}

/**
 * BullMQ's `connection` option for Herald's queues and workers. BullMQ builds each of its
 * connections from these options through the factory installed by useHeraldClientsInBullMQ,
 * which hands it a client of createRedisClient's for the right role (a Cluster included, which
 * BullMQ's own option handling cannot make). As given here they make producers; a worker marks
 * them with workerConnection.
 */
export function bullConnection(target: RedisTarget): BullRedisOptions {
  useHeraldClientsInBullMQ();
  return { [TARGET]: target };
}

/**
 * The `connection` a BullMQ Worker is given: the same options, marked for the worker role.
 * A Worker builds both of its connections from them, the one that fetches, renews locks and
 * completes jobs as well as the blocking one that waits for the next job, so every command of
 * a worker waits through an outage or a failover instead of failing at once. (BullMQ marks
 * only the blocking connection as a worker's, with `maxRetriesPerRequest: null`.) Options that
 * are not bullConnection's (the PostgreSQL store's, a client instance) are returned as given.
 */
export function workerConnection<T>(connection: T): T {
  if (typeof connection !== 'object' || connection === null || !(TARGET in connection)) {
    return connection;
  }
  return { ...connection, [ROLE]: 'worker' satisfies RedisRole };
}

const TARGET = 'heraldRedisTarget';
const ROLE = 'heraldRedisRole';
let installed = false;

/**
 * Installs, once per process, BullMQ's documented hook for making its clients. The role is the
 * one workerConnection marked; without a mark, a connection BullMQ itself made blocking (it
 * sets `maxRetriesPerRequest: null`, as for a QueueEvents) is a worker's too, and everything
 * else is a producer. Options that do not come from bullConnection get BullMQ's usual client.
 */
function useHeraldClientsInBullMQ(): void {
  if (installed) return;
  installed = true;
  RedisConnection.clientFactory = (opts) => {
    const {
      [TARGET]: target,
      [ROLE]: marked,
      ...rest
    } = opts as BullRedisOptions & { [TARGET]?: RedisTarget; [ROLE]?: RedisRole };
    if (target === undefined) {
      const { url, ...others } = rest as RedisOptions & { url?: string };
      return createIORedisClient(url ? new Redis(url, others) : new Redis(others));
    }
    const role: RedisRole = marked ?? (rest.maxRetriesPerRequest === null ? 'worker' : 'producer');
    return createIORedisClient(
      createRedisClient(target, role, { connectionName: rest.connectionName }),
    );
  };
}

function connectionOptions(role: RedisRole, options: RedisClientOptions): LegacyReplies {
  const common = {
    lazyConnect: options.lazyConnect ?? false,
    connectionName: options.connectionName,
    // A server that turned replica under us (a manual failover, an old master back as a
    // replica) answers writes with READONLY: reconnect, which finds the master, and resend.
    reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 2 : false),
  } satisfies RedisOptions;
  switch (role) {
    case 'worker':
      return { ...common, maxRetriesPerRequest: null, enableOfflineQueue: true };
    case 'producer':
      return { ...common, maxRetriesPerRequest: 1, enableOfflineQueue: false };
    case 'commands':
      return {
        ...common,
        keyPrefix: options.keyPrefix,
        maxRetriesPerRequest: 2,
        enableOfflineQueue: false,
        // Commands issued in the same turn of the event loop leave in one write and come back
        // in one read. Under load that is most of them: every /v1 request counts itself on the
        // rate limiter here, and concurrent requests share the round trip (bench/api-list).
        enableAutoPipelining: true,
      };
  }
}

/** Reconnect attempts: soon at first, then every REDIS_RECONNECT_MAX_MS, never giving up. */
function reconnectDelay(attempt: number): number {
  return doublingDelay(attempt, REDIS_RECONNECT_FIRST_MS, REDIS_RECONNECT_MAX_MS);
}
