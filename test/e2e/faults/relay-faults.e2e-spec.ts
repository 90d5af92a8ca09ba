import { SMTP_POOL } from '../../support/fault-rig';
import { waitFor } from '../../support/wait-for';
import {
  CASE_TIMEOUT_MS,
  EARLY,
  FaultCase,
  faultCase,
  LATE,
  MIDWAY,
  moment,
  perWorker,
} from './campaign-fault';

/** How long the relay refuses everything: longer than the first several retries. */
const DEFERRAL_MS = 20_000;

/**
 * The relay misbehaving in the middle of a campaign. Answering 451 to everything for a while,
 * as a real one does when overloaded or greylisting: Herald keeps the recipients deferred,
 * retries them with backoff and delivers each once when the relay takes mail again. Going
 * down and coming back while the workers hold messages' ends (outcome writes held back so
 * that every connection waits at an end): the messages it dropped go out again, and a
 * message the relay took without its 250 reaching Herald may go twice, at most one per
 * connection.
 */
describe('campaign sends when the relay defers or restarts', () => {
  const deferring = (at: number): FaultCase => ({
    name: `relay answers 451 for 20 s, ${moment(at)}`,
    at,
    bound: 0,
    env: { SMTP_RETRY_FIRST_SECONDS: '1', SMTP_RETRY_MAX_SECONDS: '4' },
    strike: ({ rig }) => rig.sink.deferFor(DEFERRAL_MS),
  });
  const restart = (at: number): FaultCase => ({
    name: `relay restarted (down 2 s) while ends are held, ${moment(at)}`,
    at,
    bound: perWorker(2),
    outcomeFaults: true,
    env: { SMTP_RETRY_FIRST_SECONDS: '1', SMTP_RETRY_MAX_SECONDS: '4' },
    strike: async ({ rig }) => {
      const release = await rig.holdOutcomeWrites();
      try {
        await waitFor(() => rig.sink.inData >= 2 * SMTP_POOL, {
          timeoutMs: 30_000,
          message: () => `${rig.sink.inData} connections at an end`,
        });
        await rig.sink.restart(2_000);
      } finally {
        await release();
      }
    },
  });

  it.concurrent.each([deferring(EARLY), deferring(LATE)])('$name', faultCase, CASE_TIMEOUT_MS);
  it.concurrent.each([restart(MIDWAY)])('$name', faultCase, CASE_TIMEOUT_MS);
});
