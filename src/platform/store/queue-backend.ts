import { createPostgresBackend, setDefaultBackendFactory } from 'bullmq';
import type { QueueOptions } from 'bullmq';
import { HeraldConfig } from '../config/config';
import { bullConnection, hashTaggedPrefix } from '../redis/redis-clients';
import { QUEUE_POOL_SIZE, QUEUE_SCHEMA } from './store.settings';

/**
 * BullMQ's connection for this process, and the backend behind every Queue and Worker it
 * makes: Redis (REDIS_URL, REDIS_CLUSTER_NODES) or BullMQ's PostgreSQL backend, which keeps the same Queue and
 * Worker API, job ids, attempts, locks and stalled-job recovery in tables of its own schema.
 * BullMQ's backend choice is process-wide (setDefaultBackendFactory): one process, one store.
 */
export function queueConnection(config: HeraldConfig): Pick<QueueOptions, 'connection' | 'prefix'> {
  if (config.redis) {
    setDefaultBackendFactory(undefined);
    // One hash tag for every queue's keys: a Cluster keeps BullMQ's multi-key scripts in one slot.
    return {
      connection: bullConnection(config.redis),
      prefix: hashTaggedPrefix(config.queuePrefix),
    };
  }
  setDefaultBackendFactory(createPostgresBackend);
  return {
    // Straight to PostgreSQL: each worker LISTENs for new jobs, which a pooler cannot carry.
    connection: {
      connectionString: config.database.directUrl,
      schema: QUEUE_SCHEMA,
      max: QUEUE_POOL_SIZE,
      // BullMQ creates and upgrades its schema on connect, under an advisory lock, so any
      // number of processes starting at once is safe.
      migrate: true,
    },
  };
}
