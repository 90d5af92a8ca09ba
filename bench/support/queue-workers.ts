// When a worker process is ready to take jobs: BullMQ names each worker's Redis connection
// after its queue, so the queue's list of workers (CLIENT LIST) shows it once it is polling.
// Waiting for that, rather than for a log line plus a pause, starts a bench's clock only
// when the first job would be taken at once.

import { Queue } from 'bullmq';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';
import { REDIS_URL } from './stores';

/** How many BullMQ workers each of `queues` of the installation QUEUE_PREFIX=`queuePrefix` has now. */
export async function queueWorkerCounts(queuePrefix: string, queues: string[]): Promise<number[]> {
  return Promise.all(
    queues.map(async (name) => {
      const queue = new Queue(name, {
        prefix: hashTaggedPrefix(queuePrefix),
        connection: { url: REDIS_URL },
      });
      try {
        return (await queue.getWorkers()).length;
      } finally {
        await queue.close();
      }
    }),
  );
}
