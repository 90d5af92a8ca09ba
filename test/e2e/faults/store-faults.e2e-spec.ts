import { FaultRig } from '../../support/fault-rig';
import { ThrowawayPostgres } from '../../support/throwaway-postgres';
import { ThrowawayRedis } from '../../support/throwaway-redis';
import { campaignUnderFault, expectWhole, faultLasting } from './campaign-fault';

/**
 * The stores going away in the middle of a campaign: PostgreSQL stopped hard (`-m immediate`,
 * every backend gone at once) and started again, Redis killed and restarted empty. The whole
 * instance (an `--api-only` API and two workers, separate processes, and one process of
 * `npm start`'s shape that serves and sends) runs on servers of this file's own, since the
 * shared ones must stay up. No process may crash, no recipient may be
 * missed or sent twice (no worker died: nothing was in flight without an owner), and sending
 * goes on by itself once the store is back.
 */
describe('campaign sends when PostgreSQL or Redis goes away', () => {
  let postgres: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let rig: FaultRig;
  /** `npm start`'s shape beside them: it crashed with the others once. */
  let allInOne: string;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([ThrowawayPostgres.start(), ThrowawayRedis.start()]);
    rig = await FaultRig.start({ postgres, redis });
    rig.startWorker();
    rig.startWorker();
    allInOne = (await rig.startAllInOne()).base;
  }, 90_000);
  afterAll(async () => {
    await rig?.dispose();
    await Promise.all([postgres?.dispose(), redis?.dispose()]);
  });

  it('PostgreSQL stopped (immediate) for 20 s: no crash, API answers 500 (retry) fast, all sent once', async () => {
    let outage: Promise<void> = Promise.resolve();
    const duringOutage: { status: number; code: unknown; ms: number }[] = [];
    const run = await campaignUnderFault(rig, 'pg-restart', {
      strike: () => {
        outage = postgres.crash();
      },
      recover: async ({ tenant }) => {
        await outage;
        // The API while the database is away: the envelope, a 500 that says to retry, in bounded time.
        for (const path of ['/v1/campaigns', '/v1/subscribers']) {
          const answer = await rig.request<{ error?: { code?: string } }>(tenant, 'GET', path);
          duringOutage.push({
            status: answer.status,
            code: answer.body.error?.code,
            ms: answer.ms,
          });
        }
        await faultLasting(20_000);
        await postgres.resume();
      },
      sentWithinMs: 150_000,
    });
    expect(duringOutage.map(({ status, code }) => ({ status, code }))).toEqual([
      { status: 500, code: 'internal_error' },
      { status: 500, code: 'internal_error' },
    ]);
    expect(Math.max(...duringOutage.map(({ ms }) => ms))).toBeLessThan(2_000);
    expectWhole(run, 0);
    expect(rig.crashed().map((process) => process.tail())).toEqual([]);
    expect((await fetch(`${allInOne}/health`)).status).toBe(200);
  }, 240_000);

  it('Redis killed and restarted empty: sending resumes within 10 s, all sent once', async () => {
    let crash: Promise<void> = Promise.resolve();
    const run = await campaignUnderFault(rig, 'redis-restart', {
      strike: () => {
        crash = redis.crash();
      },
      recover: async () => {
        await crash;
        await redis.restart();
      },
    });
    // Neither a message nor the end of the campaign for this long: sending stood still.
    expect(run.longestStandstillMs).toBeLessThan(10_000);
    expectWhole(run, 0);
    expect(rig.crashed().map((process) => process.tail())).toEqual([]);
  }, 180_000);
});
