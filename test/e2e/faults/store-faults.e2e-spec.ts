import {
  CASE_TIMEOUT_MS,
  EARLY,
  FaultCase,
  faultCase,
  faultLasting,
  LATE,
  MIDWAY,
  moment,
  perWorker,
} from './campaign-fault';

/**
 * The stores going away in the middle of a campaign: PostgreSQL stopped hard (`-m immediate`,
 * every backend gone at once) and started again, Redis killed and restarted empty, and outcome
 * writes refused by the database for a while. Each case runs on servers of its own (the shared
 * ones must stay up). No process may crash and no recipient may be missed; an outage shorter
 * than the delivery lease (30 s) sends nobody twice (every run still owns its rows when the
 * store is back), a longer one at most one message per connection of each worker cut off.
 */
describe('campaign sends when PostgreSQL or Redis goes away', () => {
  const postgresDown = (at: number, downMs: number, bound: number): FaultCase => {
    let outage: Promise<void> = Promise.resolve();
    return {
      name: `PostgreSQL stopped ${downMs / 1000} s, ${moment(at)}`,
      at,
      bound,
      strike: ({ postgres }) => {
        outage = postgres.crash();
      },
      recover: async ({ postgres }) => {
        await outage;
        await faultLasting(downMs);
        await postgres.resume();
      },
    };
  };
  const redisRestart = (at: number): FaultCase => {
    let crash: Promise<void> = Promise.resolve();
    return {
      name: `Redis killed and restarted empty, ${moment(at)}`,
      at,
      bound: 0,
      stores: { redis: true },
      strike: ({ redis }) => {
        crash = redis!.crash();
      },
      recover: async ({ redis }) => {
        await crash;
        await redis!.restart();
      },
    };
  };
  /** Refused with an error that is no outage (a trigger, as a permission or a bug would). */
  const writesFailing = (at: number): FaultCase => ({
    name: `outcome writes failing 20 s, ${moment(at)}`,
    at,
    bound: 0,
    outcomeFaults: true,
    strike: ({ rig }) => rig.failOutcomeWrites(true),
    recover: async ({ rig }) => {
      await faultLasting(20_000);
      await rig.failOutcomeWrites(false);
    },
  });

  it.concurrent.each([
    postgresDown(EARLY, 20_000, 0),
    postgresDown(LATE, 20_000, 0),
    // Past the 30 s lease: the runs cut off lose their claims to the next runs.
    postgresDown(MIDWAY, 90_000, perWorker(2)),
  ])('$name', faultCase, CASE_TIMEOUT_MS);
  it.concurrent.each([redisRestart(EARLY), redisRestart(LATE)])(
    '$name',
    faultCase,
    CASE_TIMEOUT_MS,
  );
  it.concurrent.each([writesFailing(EARLY), writesFailing(LATE)])(
    '$name',
    faultCase,
    CASE_TIMEOUT_MS,
  );
});
