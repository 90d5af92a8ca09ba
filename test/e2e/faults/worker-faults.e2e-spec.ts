import { FaultRig, SMTP_POOL } from '../../support/fault-rig';
import { HeraldProcess } from '../../support/herald-process';
import { waitFor } from '../../support/wait-for';
import { campaignUnderFault, expectWhole, faultLasting } from './campaign-fault';

/**
 * Worker processes dying or freezing in the middle of a campaign, with a separate API process
 * and two workers. Whatever happens, every recipient gets the message; a worker that dies or
 * freezes with messages in SMTP transactions can cause at most that many duplicates (its SMTP
 * pool), because the relay may have accepted them without Herald hearing the 250.
 */
describe('campaign sends when worker processes die or freeze', () => {
  let rig: FaultRig;

  beforeAll(async () => {
    rig = await FaultRig.start();
  }, 60_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  /** Two live workers, whatever earlier tests left. */
  async function twoWorkers(): Promise<[HeraldProcess, HeraldProcess]> {
    for (const worker of rig.workers) await worker.stop();
    rig.workers.length = 0;
    return [rig.startWorker(), rig.startWorker()];
  }

  it('SIGKILL of one worker at a quarter delivered, a replacement started', async () => {
    const [first] = await twoWorkers();
    const run = await campaignUnderFault(rig, 'kill-one', {
      strike: () => first.killNow(),
      recover: async () => {
        await first.exited();
        rig.startWorker();
      },
    });
    expectWhole(run, SMTP_POOL);
    expect(rig.crashed()).toEqual([]);
  }, 180_000);

  it('SIGKILL of both workers at a quarter delivered, two new ones started', async () => {
    const [first, second] = await twoWorkers();
    const run = await campaignUnderFault(rig, 'kill-both', {
      strike: () => {
        first.killNow();
        second.killNow();
      },
      recover: async () => {
        await Promise.all([first.exited(), second.exited()]);
        rig.startWorker();
        rig.startWorker();
      },
    });
    expectWhole(run, 2 * SMTP_POOL);
    expect(rig.crashed()).toEqual([]);
  }, 180_000);

  it('SIGSTOP of one worker for 40 s (past its job lock and claim lease), then SIGCONT', async () => {
    const [first] = await twoWorkers();
    let thawed = false;
    const run = await campaignUnderFault(rig, 'freeze-one', {
      strike: () => first.freeze(),
      recover: async () => {
        await faultLasting(40_000);
        first.thaw();
        thawed = true;
      },
      // Whatever the thawed worker still does lands before it exits: then count.
      settle: async () => {
        await waitFor(() => thawed, { timeoutMs: 60_000 });
        await first.stop();
      },
    });
    expectWhole(run, SMTP_POOL);
    expect(rig.crashed()).toEqual([]);
  }, 240_000);
});
