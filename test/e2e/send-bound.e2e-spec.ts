import { FaultRig, SMTP_POOL, Tenant } from '../support/fault-rig';
import { waitFor } from '../support/wait-for';
import { faultLasting } from './faults/campaign-fault';

/**
 * The bound every send keeps: a worker has at most one message per SMTP connection that the
 * relay may have taken while its outcome is not committed, so a worker that dies or freezes
 * sends at most that many twice. Outcome writes are made to fail or to wait by triggers in
 * this suite's own database (FaultRig.installOutcomeFaults), while one worker sends to a real
 * SMTP sink.
 */
describe('the bound of one unknown message per connection', () => {
  let rig: FaultRig;

  beforeAll(async () => {
    rig = await FaultRig.start();
    await rig.installOutcomeFaults();
    rig.startWorker();
  }, 60_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  async function sendTransactional(tenant: Tenant, to: string): Promise<string> {
    const accepted = await rig.request<{ id: string }>(tenant, 'POST', '/v1/transactional/send', {
      to,
      from: 'Acme <hello@acme.test>',
      subject: 'Your receipt',
      text: 'Thanks!',
    });
    if (accepted.status !== 202) throw new Error(`send: ${JSON.stringify(accepted)}`);
    return accepted.body.id;
  }

  it('outcome writes failing for a while: the worker stops ending messages until they land', async () => {
    const tenant = await rig.tenant('failing-writes');
    const emails = await rig.audience(tenant.accountId, 1000, 'failing.test');
    const before = rig.sink.messages.length;
    rig.sink.whenReceived(before + 100, () => {
      void rig.failOutcomeWrites(true);
    });
    const campaignId = await rig.sendCampaign(tenant, 'failing-writes');
    await waitFor(() => rig.sink.messages.length >= before + 100, { timeoutMs: 60_000 });
    // Longer than the few quick tries a write gets before anything gives up on it.
    await faultLasting(10_000);
    const duringFault = rig.sink.messages.length - before;
    await rig.failOutcomeWrites(false);
    await rig.waitUntilSent(tenant, campaignId, 120_000);

    const duplicates = emails.reduce((n, email) => n + Math.max(0, rig.sink.countOf(email) - 1), 0);
    console.log(`failing-writes: ${duringFault} accepted by the fault's end, ${duplicates} dups`);
    expect(rig.sink.missing(emails)).toEqual([]);
    expect(duplicates).toBeLessThanOrEqual(SMTP_POOL);
    expect(rig.crashed()).toEqual([]);
  }, 180_000);

  it('campaign and transactional sends together leave at most one per connection unrecorded', async () => {
    const tenant = await rig.tenant('shared-pool');
    const emails = await rig.audience(tenant.accountId, 300, 'shared.test');
    const buyers = Array.from({ length: 20 }, (_, n) => `buyer${n}@shop.test`);
    const before = rig.sink.messages.length;
    const release = await rig.holdOutcomeWrites();
    let acceptedWhileHeld: number;
    try {
      // Transactional messages first, then the campaign: both want the same connections.
      await Promise.all(buyers.map((to) => sendTransactional(tenant, to)));
      await waitFor(() => rig.sink.messages.length - before >= SMTP_POOL, {
        timeoutMs: 60_000,
        message: () => rig.logs(),
      });
      const campaignId = await rig.sendCampaign(tenant, 'shared-pool');
      // Every connection waits at a message's end: nothing more can reach the relay.
      await waitFor(() => rig.sink.inData >= SMTP_POOL, {
        timeoutMs: 60_000,
        message: () => `${rig.sink.inData} connections at an end\n${rig.logs()}`,
      });
      acceptedWhileHeld = rig.sink.messages.length - before;
      await release();
      await rig.waitUntilSent(tenant, campaignId, 120_000);
    } finally {
      await release().catch(() => undefined);
    }
    await waitFor(() => buyers.every((to) => rig.sink.countOf(to) > 0), { timeoutMs: 60_000 });
    console.log(`shared-pool: ${acceptedWhileHeld} accepted while outcome writes waited`);
    expect(acceptedWhileHeld).toBeLessThanOrEqual(SMTP_POOL);
    expect([...emails, ...buyers].filter((to) => rig.sink.countOf(to) !== 1)).toEqual([]);
  }, 180_000);
});
