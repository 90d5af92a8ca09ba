// When a worker process is ready to take jobs: BullMQ names each worker's Redis connection
// after its queue, so the queue's list of workers (CLIENT LIST) shows it once it is polling.
// Waiting for that, rather than for a log line plus a pause, starts a bench's clock only
// when the first job would be taken at once.

import { createPostgresBackend, Queue } from 'bullmq';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';
import { QUEUE_SCHEMA } from '../../src/platform/store/store.settings';
import { REDIS_URL } from './stores';

/**
 * How many BullMQ workers each of `queues` has now; on the PostgreSQL store (BENCH_STORE), of
 * the database `databaseUrl`, where BullMQ names each worker's LISTEN connection alike.
 */
export async function queueWorkerCounts(
  prefix: string,
  queues: string[],
  databaseUrl: string,
): Promise<number[]> {
  return Promise.all(
    queues.map(async (name) => {
      const queue = REDIS_URL
        ? new Queue(name, { prefix: hashTaggedPrefix(prefix), connection: { url: REDIS_URL } })
        : new Queue(
            name,
            { connection: { connectionString: databaseUrl, schema: QUEUE_SCHEMA, max: 1 } },
            createPostgresBackend,
          );
      try {
        return (await queue.getWorkers()).length;
      } finally {
        await queue.close();
      }
    }),
  );
}
