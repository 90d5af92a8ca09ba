import { FaultRig } from '../../support/fault-rig';
import { waitFor } from '../../support/wait-for';
import { AUDIENCE, campaignUnderFault, expectWhole } from './campaign-fault';

/** How long the relay refuses everything: longer than the first several retries. */
const DEFERRAL_MS = 20_000;

/**
 * The relay answering 451 to everything for a while in the middle of a campaign, as a real
 * one does when overloaded or greylisting: Herald keeps the recipients deferred (visible in the
 * stats), retries them with backoff, and delivers each once when the relay takes mail again;
 * nobody is failed, and the campaign reads `sent` only when the last one is delivered.
 */
describe('campaign sends when the relay defers everything for a while', () => {
  let rig: FaultRig;

  beforeAll(async () => {
    rig = await FaultRig.start({
      env: { SMTP_RETRY_FIRST_SECONDS: '1', SMTP_RETRY_MAX_SECONDS: '4' },
    });
    rig.startWorker();
    rig.startWorker();
  }, 60_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  it('451 for 20 s from a quarter delivered: deferred meanwhile, then each delivered once', async () => {
    let deferredSeen = 0;
    const run = await campaignUnderFault(rig, 'relay-451', {
      strike: () => rig.sink.deferFor(DEFERRAL_MS),
      // While the relay refuses, the stats say how many recipients wait for a retry.
      recover: async ({ tenant, campaignId }) => {
        await waitFor(
          async () => {
            const stats = await rig.stats(tenant, campaignId);
            deferredSeen = Math.max(deferredSeen, stats.deferred ?? 0);
            expect(stats.delivered + stats.failed + stats.outstanding).toBe(stats.recipients);
            return deferredSeen > 0 || Date.now() >= rig.sink.deferUntil;
          },
          { timeoutMs: DEFERRAL_MS + 5_000, intervalMs: 250 },
        );
      },
    });
    console.log(`relay-451: ${rig.sink.deferred} refusals, up to ${deferredSeen} deferred at once`);
    expect(rig.sink.deferred).toBeGreaterThan(0);
    expect(deferredSeen).toBeGreaterThan(0);
    expect(deferredSeen).toBeLessThanOrEqual(AUDIENCE);
    expectWhole(run, 0);
    expect(run.stats.deferred).toBe(0);
    expect(rig.crashed()).toEqual([]);
  }, 180_000);
});
