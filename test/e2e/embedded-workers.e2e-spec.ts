import { FaultRig, Tenant } from '../support/fault-rig';
import { probeHealthDuring } from '../support/health-probe';
import { alive, childrenOf } from '../support/processes';
import { waitFor } from '../support/wait-for';

/** Links in the campaign's HTML: each is rewritten and signed for every recipient. */
const LINKS = 25_000;
const RECIPIENTS = 8;
/** What the contract promises of GET /health while the embedded workers send anything. */
const HEALTH_WITHIN_MS = 500;

/**
 * `npm start` runs the send workers in the API's process: whatever they build (rendering,
 * link rewriting, MIME composition, signing), request handling must go on. A campaign whose
 * HTML holds 25,000 links once kept GET /health waiting for seconds.
 */
describe("npm start's embedded workers and request handling", () => {
  let rig: FaultRig;
  let tenant: Tenant;

  beforeAll(async () => {
    rig = await FaultRig.start();
    tenant = await rig.tenant('Heavy');
    await rig.audience(tenant.accountId, RECIPIENTS, 'heavy.test');
  }, 120_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  it('answers GET /health quickly while a campaign of 25,000 links sends', async () => {
    const { base } = await rig.startAllInOne();
    // As short as a link can be, to fit the body limit; each is still tracked and signed.
    const links = '<a href=http://a.io>'.repeat(LINKS);
    const created = await rig.request<{ id: string }>(tenant, 'POST', '/v1/campaigns', {
      name: 'Catalogue',
      subject: 'Everything we sell',
      from: 'news@acme.test',
      html: `<html><body><p>Hi {{first_name}}</p>${links}</body></html>`,
      text: 'Our catalogue',
    });
    expect(created.status).toBe(201);
    // Sent through the all-in-one process's own API, so its workers take the jobs as soon as
    // the API process's do (both consume the same queues).
    const sent = await fetch(`${base}/v1/campaigns/${created.body.id}/send`, {
      method: 'POST',
      headers: { Authorization: tenant.auth },
    });
    expect(sent.status).toBe(202);

    // Other suites share the machine's two cores: only the time beyond an idle control's counts.
    const { probes, slowest } = await probeHealthDuring(base, () =>
      waitFor(() => rig.sink.messages.length >= RECIPIENTS, {
        timeoutMs: 120_000,
        message: () => rig.logs(),
      }),
    );
    // The health checks spanned the whole send, not just its start.
    expect(probes).toBeGreaterThan(5);
    expect(slowest).toBeLessThanOrEqual(HEALTH_WITHIN_MS);
  }, 180_000);

  it('ends its workers when it is killed, and starts them again when they die', async () => {
    const { process: all } = await rig.startAllInOne();
    const workerPid = await waitFor(() => childrenOf(all.pid)[0], {
      message: 'no worker process started',
    });
    process.kill(workerPid, 'SIGKILL');
    const replacement = await waitFor(() => childrenOf(all.pid).find((pid) => pid !== workerPid), {
      message: 'the worker was not started again',
    });
    await all.kill();
    await waitFor(() => !alive(replacement), {
      message: 'the worker outlived the process that started it',
    });
  }, 60_000);
});
