// When a worker process is ready to take jobs: BullMQ names each worker's Redis connection
// after its queue, so the queue's list of workers (CLIENT LIST) shows it once it is polling.
// Waiting for that, rather than for a log line plus a pause, starts a bench's clock only
// when the first job would be taken at once.

import { Queue } from 'bullmq';
import { REDIS_URL } from './stores';

/** How many BullMQ workers each of `queues` has now. */
export async function queueWorkerCounts(prefix: string, queues: string[]): Promise<number[]> {
  return Promise.all(
    queues.map(async (name) => {
      const queue = new Queue(name, { prefix, connection: { url: REDIS_URL } });
      try {
        return (await queue.getWorkers()).length;
      } finally {
        await queue.close();
      }
    }),
  );
}
