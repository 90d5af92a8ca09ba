import { FaultRig, Tenant } from '../../support/fault-rig';
import { waitFor } from '../../support/wait-for';

/** Messages sent at once: more than one worker takes (TRANSACTIONAL_CONCURRENCY = 8). */
const MESSAGES = 20;

/**
 * A worker killed while its SMTP transactions are open (the relay has not answered MAIL FROM
 * yet): the messages it had claimed are taken over once their one-minute lease has run out,
 * and every message is delivered exactly once; the others go out from the other workers at
 * once.
 */
describe('transactional sends when a worker dies mid-send', () => {
  let rig: FaultRig;

  beforeAll(async () => {
    rig = await FaultRig.start();
  }, 60_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  async function send(tenant: Tenant, to: string): Promise<string> {
    const accepted = await rig.request<{ id: string }>(tenant, 'POST', '/v1/transactional/send', {
      to,
      from: 'Acme <hello@acme.test>',
      subject: 'Your receipt',
      text: 'Thanks!',
    });
    if (accepted.status !== 202) throw new Error(`send: ${JSON.stringify(accepted)}`);
    return accepted.body.id;
  }

  it('SIGKILL of the worker holding the messages: each delivered once, within about a minute', async () => {
    const tenant = await rig.tenant('Receipts');
    const doomed = rig.startWorker();
    // Every transaction hangs at MAIL FROM: the worker holds claims it has not sent.
    rig.sink.holdAfter = 0;
    const recipients = Array.from({ length: MESSAGES }, (_, n) => `buyer${n}@shop.test`);
    const ids = await Promise.all(recipients.map((to) => send(tenant, to)));
    await waitFor(() => rig.sink.held >= 8, {
      timeoutMs: 60_000,
      message: () => `the worker never held 8 transactions (${rig.sink.held})\n${rig.logs()}`,
    });
    const killedAt = Date.now();
    await doomed.kill();
    rig.sink.release();
    rig.startWorker();
    rig.startWorker();

    const deliveredAt = await waitFor(
      () => recipients.every((to) => rig.sink.countOf(to) > 0) && Date.now(),
      { timeoutMs: 120_000, intervalMs: 200, message: () => rig.logs() },
    );
    // Every message reads sent; only then is nothing left that could still go out.
    await waitFor(
      async () => {
        for (const id of ids) {
          const message = await rig.request<{ status: string }>(
            tenant,
            'GET',
            `/v1/transactional/${id}`,
          );
          if (message.body.status !== 'sent') return false;
        }
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const copies = recipients.map((to) => rig.sink.countOf(to));
    const offsets = rig.sink.messages.map((m) => m.receivedAt - killedAt).sort((a, b) => a - b);
    console.log(`transactional-kill: delivered at (ms after the kill) ${offsets.join(' ')}`);
    console.log(
      `transactional-kill: all ${MESSAGES} delivered ${deliveredAt - killedAt} ms after the kill, ` +
        `copies per recipient ${JSON.stringify([...new Set(copies)])}`,
    );
    expect(copies).toEqual(recipients.map(() => 1));
    // A one-minute lease, a sweep every 10 s: well within 80 s even on a busy machine.
    expect(deliveredAt - killedAt).toBeLessThan(80_000);
    expect(rig.crashed()).toEqual([]);
  }, 200_000);
});
