import { waitFor } from '../../support/wait-for';
import {
  CASE_TIMEOUT_MS,
  EARLY,
  FaultCase,
  faultCase,
  faultLasting,
  LATE,
  moment,
  perWorker,
} from './campaign-fault';

/**
 * Worker processes dying or freezing in the middle of a campaign (an API process and two
 * workers). Whatever happens, every recipient gets the message; a worker that dies or freezes
 * with messages in SMTP transactions can cause at most one duplicate per connection of its
 * pool, because the relay may have accepted them without Herald hearing the 250.
 */
describe('campaign sends when worker processes die or freeze', () => {
  const killOne = (at: number): FaultCase => ({
    name: `kill one worker (SIGKILL), ${moment(at)}`,
    at,
    bound: perWorker(1),
    strike: ({ workers }) => workers[0].killNow(),
    recover: async ({ rig, workers }) => {
      await workers[0].exited();
      rig.startWorker();
    },
  });
  const killBoth = (at: number): FaultCase => ({
    name: `kill both workers, ${moment(at)}`,
    at,
    bound: perWorker(2),
    strike: ({ workers }) => workers.forEach((worker) => worker.killNow()),
    recover: async ({ rig, workers }) => {
      await Promise.all(workers.map((worker) => worker.exited()));
      rig.startWorker();
      rig.startWorker();
    },
  });
  /** 40 s: past its job lock and its claims' lease. */
  const freezeOne = (at: number): FaultCase => {
    let thawed = false;
    return {
      name: `freeze one worker 40 s (SIGSTOP), ${moment(at)}`,
      at,
      bound: perWorker(1),
      strike: ({ workers }) => workers[0].freeze(),
      recover: async ({ workers }) => {
        await faultLasting(40_000);
        workers[0].thaw();
        thawed = true;
      },
      // Whatever the thawed worker still does lands before it exits: then count.
      settle: async ({ workers }) => {
        await waitFor(() => thawed, { timeoutMs: 60_000 });
        await workers[0].stop();
      },
    };
  };

  it.concurrent.each([killOne(EARLY), killOne(LATE), killBoth(EARLY), killBoth(LATE)])(
    '$name',
    faultCase,
    CASE_TIMEOUT_MS,
  );
  it.concurrent.each([freezeOne(EARLY), freezeOne(LATE)])('$name', faultCase, CASE_TIMEOUT_MS);
});
