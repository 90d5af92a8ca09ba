import { Logger } from '@nestjs/common';
import { Job, Queue, setDefaultBackendFactory, Worker } from 'bullmq';
import { queueConnection } from '../../src/platform/store/queue-backend';
import { stopWaitingForQueueStore } from '../../src/platform/store/queue-pool';
import { QUEUE_QUERY_CONNECTIONS } from '../../src/platform/store/store.settings';
import { TestEnv } from '../support/test-env';
import { ThrowawayPostgres } from '../support/throwaway-postgres';
import { waitFor } from '../support/wait-for';

const QUEUES = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
/** Jobs each queue gets at once, more than its worker takes at a time. */
const JOBS = 12;

/**
 * The PostgreSQL store's queues in one process: every Queue and Worker shares one pool, which
 * creates BullMQ's schema in a database that has none, holds one LISTEN connection per Worker
 * plus a few for queries whatever the number of queues, keeps jobs flowing with as many
 * Workers as it has query connections, and closes its connections with the last of them.
 */
describe('the queue pool of the PostgreSQL store', () => {
  let env: TestEnv;
  const queues: Queue[] = [];
  const workers: Worker[] = [];

  beforeAll(async () => {
    env = await TestEnv.create();
  });
  afterAll(async () => {
    await Promise.all([...workers, ...queues].map((each) => each.close()));
    setDefaultBackendFactory(undefined);
    await env?.dispose();
  });

  /** This database's connections other than the one asking. */
  const connections = async () =>
    (
      await env.sql<{ open: number; listening: number }>(
        `SELECT count(*)::int AS open,
                count(*) FILTER (WHERE application_name = ANY($1::text[]))::int AS listening
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        [QUEUES],
      )
    )[0];

  it('carries every queue of a process on one pool, one LISTEN per worker and a few for queries', async () => {
    const [{ schemas }] = await env.sql<{ schemas: number }>(
      `SELECT count(*)::int AS schemas FROM pg_namespace WHERE nspname = 'bullmq'`,
    );
    expect(schemas).toBe(0);

    const options = queueConnection({ ...env.config, redis: undefined });
    const done = new Map<string, number>(QUEUES.map((name) => [name, 0]));
    for (const name of QUEUES) {
      queues.push(new Queue(name, options));
      workers.push(
        new Worker(
          name,
          async (job: Job) => {
            done.set(job.queueName, done.get(job.queueName)! + 1);
            return Promise.resolve();
          },
          { ...options, concurrency: 4 },
        ),
      );
    }
    for (const queue of queues) {
      await queue.addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: 'job', data: { i } })));
    }

    let peak = 0;
    await waitFor(
      async () => {
        peak = Math.max(peak, (await connections()).open);
        return [...done.values()].every((count) => count === JOBS);
      },
      { timeoutMs: 30_000, message: () => `done: ${JSON.stringify([...done])}` },
    );
    const { open, listening } = await connections();
    expect(listening).toBe(QUEUES.length);
    expect(Math.max(peak, open)).toBeLessThanOrEqual(QUEUES.length + QUEUE_QUERY_CONNECTIONS);
    for (const queue of queues) {
      expect(await queue.getJobCounts('completed', 'failed', 'wait', 'active')).toEqual({
        completed: JOBS,
        failed: 0,
        wait: 0,
        active: 0,
      });
    }
  });

  it('closes its connections when the last queue and worker close', async () => {
    await Promise.all([...workers, ...queues].map((each) => each.close()));
    await waitFor(async () => (await connections()).open === 0, {
      message: 'the pool kept connections after every queue and worker closed',
    });
  });

  it("stops telling a closed queue of the pool's errors", async () => {
    const options = queueConnection({ ...env.config, redis: undefined });
    const open = new Queue('hearing', options);
    const closed = new Queue('closed', options);
    queues.push(open, closed);
    const heard = { open: [] as string[], closed: [] as string[] };
    open.on('error', (error) => heard.open.push(error.message));
    closed.on('error', (error) => heard.closed.push(error.message));
    await Promise.all([open.getJobCounts('wait'), closed.getJobCounts('wait')]);
    await closed.close();
    // The open queue keeps the pool, and an idle connection in it, which PostgreSQL then ends.
    await open.getJobCounts('wait');
    await env.sql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    await waitFor(() => heard.open.length > 0, { message: 'the open queue heard nothing' });
    expect(heard.closed).toEqual([]);
  });
});

/**
 * PostgreSQL away: queues made during an outage wait for it rather than fail (BullMQ keeps a
 * backend's first failed readiness check for good, so failing would leave them broken) unless
 * their process closes, and a crash later costs the pool only the connections it ended: the
 * worker listens again on a new LISTEN connection from the pool, and jobs flow.
 */
describe('the queue pool of the PostgreSQL store, across PostgreSQL outages', () => {
  let postgres: ThrowawayPostgres;
  let env: TestEnv;
  let queue: Queue | undefined;
  let worker: Worker | undefined;
  const done: number[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    postgres = await ThrowawayPostgres.start();
    env = await TestEnv.create({}, { databaseServer: postgres.serverUrl });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([worker?.close(), queue?.close()]);
    setDefaultBackendFactory(undefined);
    await env?.dispose();
    await postgres?.dispose();
  });

  /** Whether the worker's LISTEN connection (named after its queue) is open. */
  const listening = async () =>
    (
      await env.sql(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'outages'`,
      )
    ).length === 1;
  // An add that meets a connection the server ended is the caller's to retry, as with Redis.
  const add = (n: number) =>
    waitFor(() => queue!.add('job', { n }).catch(() => undefined), { timeoutMs: 30_000 });

  it('ends what waits for PostgreSQL when the process closes', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await postgres.crash();
    const producer = new Queue('closing', queueConnection({ ...env.config, redis: undefined }));
    producer.on('error', () => undefined);
    const counted = producer.getJobCounts('wait');
    await waitFor(() => warned.mock.calls.length >= 1, { message: 'it never tried PostgreSQL' });
    warned.mockRestore();
    // What a worker's close calls: anything awaiting the count (a destroy hook, say) moves on.
    stopWaitingForQueueStore();
    await expect(counted).rejects.toThrow(/stopped waiting for PostgreSQL/);
    await producer.close();
  });

  it('works once PostgreSQL answers when its queues were made during an outage', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const options = queueConnection({ ...env.config, redis: undefined });
    queue = new Queue('outages', options);
    worker = new Worker(
      'outages',
      async (job: Job<{ n: number }>) => {
        done.push(job.data.n);
        return Promise.resolve();
      },
      options,
    );
    queue.on('error', (error) => errors.push(error.message));
    worker.on('error', (error) => errors.push(error.message));
    await waitFor(() => warned.mock.calls.length >= 2, { message: 'it never tried PostgreSQL' });
    expect(String(warned.mock.calls[0][0])).toMatch(/queues wait for PostgreSQL/);
    warned.mockRestore();

    await postgres.resume();
    await add(1);
    await waitFor(() => done.includes(1), { message: () => errors.join('\n') });
    await waitFor(listening, { message: 'the worker never listened' });
  });

  it('listens again and works on after PostgreSQL crashes', async () => {
    await postgres.crash();
    await postgres.resume();
    await waitFor(listening, { timeoutMs: 30_000, message: () => errors.join('\n') });
    await add(2);
    await waitFor(() => done.includes(2), { timeoutMs: 30_000, message: () => errors.join('\n') });
    expect(done).toEqual([1, 2]);
  });
});
