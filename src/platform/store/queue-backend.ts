import { createPostgresBackend, setDefaultBackendFactory } from 'bullmq';
import type { BackendFactory, QueueOptions } from 'bullmq';
import { HeraldConfig } from '../config/config';
import { nameOutageStore } from '../logging/store-outage-log';
import { bullConnection, hashTaggedPrefix } from '../redis/redis-clients';
import { QueuePool } from './queue-pool';

/**
 * BullMQ's connection for this process, and the backend behind every Queue and Worker it
 * makes: Redis (REDIS_URL, REDIS_CLUSTER_NODES) or BullMQ's PostgreSQL backend, which keeps the same Queue and
 * Worker API, job ids, attempts, locks and stalled-job recovery in tables of its own schema.
 * BullMQ's backend choice is process-wide (setDefaultBackendFactory): one process, one store.
 */
export function queueConnection(config: HeraldConfig): Pick<QueueOptions, 'connection' | 'prefix'> {
  if (config.redis) {
    setDefaultBackendFactory(undefined);
    nameOutageStore('Redis');
    // One hash tag for every queue's keys: a Cluster keeps BullMQ's multi-key scripts in one slot.
    return {
      connection: bullConnection(config.redis),
      prefix: hashTaggedPrefix(config.queuePrefix),
    };
  }
  setDefaultBackendFactory(sharedPoolBackend);
  nameOutageStore('PostgreSQL');
  // Straight to PostgreSQL: each worker LISTENs for new jobs, which a pooler cannot carry.
  const connection: QueueDatabase = { connectionString: config.database.directUrl };
  return { connection };
}

/** What the PostgreSQL store's Queues and Workers are given as their connection. */
interface QueueDatabase {
  connectionString: string;
}

/** The shared pool of each database this process queues in (tests run several apps). */
const pools = new Map<string, QueuePool>();

/**
 * BullMQ's PostgreSQL backend, on the one pool the process's Queues and Workers share for
 * that database (queue-pool.ts). A Worker's backend (and a QueueEvents') holds a LISTEN
 * connection; the pool grows by one for it while the backend lives.
 */
const sharedPoolBackend: BackendFactory = (name, opts, kind = {}) => {
  const { connectionString } = opts.connection as QueueDatabase;
  let shared = pools.get(connectionString);
  if (!shared) {
    shared = new QueuePool(connectionString, () => pools.delete(connectionString));
    pools.set(connectionString, shared);
  }
  const lease = shared.lease(Boolean(kind.blocking || kind.withBlockingConnection));
  const backend = createPostgresBackend(name, { ...opts, connection: lease }, kind);
  backend.once('close', () => lease.release());
  return backend;
};
