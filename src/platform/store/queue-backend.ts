import { createPostgresBackend, setDefaultBackendFactory } from 'bullmq';
import type { QueueOptions } from 'bullmq';
import { HeraldConfig } from '../config/config';
import { QUEUE_POOL_SIZE, QUEUE_SCHEMA } from './store.settings';

/**
 * BullMQ's connection for this process, and the backend behind every Queue and Worker it
 * makes: Redis (REDIS_URL) or BullMQ's PostgreSQL backend, which keeps the same Queue and
 * Worker API, job ids, attempts, locks and stalled-job recovery in tables of its own schema.
 * BullMQ's backend choice is process-wide (setDefaultBackendFactory): one process, one store.
 */
export function queueConnection(config: HeraldConfig): Pick<QueueOptions, 'connection' | 'prefix'> {
  if (config.redisUrl) {
    setDefaultBackendFactory(undefined);
    return { connection: { url: config.redisUrl }, prefix: config.queuePrefix };
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
