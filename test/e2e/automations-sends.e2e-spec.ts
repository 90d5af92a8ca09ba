import request from 'supertest';
import type { Tenant } from '../support/factories';
import { HeraldProcess } from '../support/herald-process';
import { DashboardAgent } from './dashboard-agent';
import { processEnv } from '../support/processes';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { APPLE_PROXY, BROWSER, linksOf, SCANNER } from '../support/tracking-links';
import { waitFor } from '../support/wait-for';

const PUBLIC_URL = 'http://herald.acme.test';
const SHOP = 'https://shop.acme.example/sale';
/** Lowered from 500 so that a list of a few hundred is enough for the guard to judge. */
const MIN_DELIVERED = 20;
/** The account's pace (a message every 50 ms): the guard looks while the list is still going. */
const SEND_RATE = 1200;
/** Opens and clicks this soon after delivery are a machine's (MACHINE_WINDOW_MS). */
const MACHINE_WINDOW_MS = 5_000;

/**
 * What automation mail does once sent, with a real worker process (dist/worker.js) beside an
 * API that runs none, and an SMTP sink: a person's open or click of a send step's message
 * routes its run through a condition (a machine's does not), the hidden campaigns behind send
 * steps are nobody's business on the campaigns API, and a step campaign the reputation guard
 * pauses pauses its automation until someone activates it again.
 */
describe('automation sends (e2e)', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let worker: HeraldProcess;
  let tenant: Tenant;
  let templateId: string;

  beforeAll(async () => {
    sink = await SmtpSink.start({ keepBodies: true });
    const settings = {
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL,
      RATE_LIMIT: '100000',
      RATE_GUARD_MIN_DELIVERED: String(MIN_DELIVERED),
      SEND_RATE_PER_MINUTE: String(SEND_RATE),
    };
    env = await TestEnv.create(settings);
    api = await TestApi.start(env, { workers: false });
    worker = HeraldProcess.start('worker', 'worker', processEnv(env, settings));
    tenant = await api.tenant('Journeys');
    templateId = (
      await api.make.template(tenant.accountId, {
        html: `<p>Hello {{first_name}}, <a href="${SHOP}">see the sale</a></p>`,
      })
    ).id;
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const as = (
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    auth: string = tenant.auth,
  ) => request(api.server)[method](path).set('Authorization', auth);
  const subscribe = async (email: string) => {
    const response = await as('post', '/v1/subscribers').send({ email });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const automation = async (body: object, auth = tenant.auth) => {
    const created = await as('post', '/v1/automations', auth).send({ name: 'Flow', ...body });
    expect(created.status).toBe(201);
    await as('post', `/v1/automations/${created.body.id}/activate`, auth).expect(200);
    return created.body.id as string;
  };
  type Run = {
    id: string;
    status: string;
    steps: { step_id: string; status: string; message_id?: string }[];
  };
  const enrol = async (automationId: string, subscriberId: string) => {
    const run = await as('post', `/v1/automations/${automationId}/runs`).send({
      subscriber_id: subscriberId,
    });
    expect(run.status).toBe(201);
    return run.body.id as string;
  };
  const runOf = async (runId: string) =>
    (await as('get', `/v1/automation-runs/${runId}`).expect(200)).body as Run;
  const mailTo = (email: string) => sink.messages.filter((m) => m.to.includes(email));
  const diagnostics = () => worker.tail();

  /**
   * A send step, a long wait, then the condition: `yes` for a person who did it, `no`
   * otherwise, both ending in a short wait so that runs complete.
   */
  const branching = (test: 'opened' | 'clicked') => ({
    trigger: { type: 'manual' },
    steps: [
      { id: 'mail', type: 'send', template_id: templateId, subject: 'The sale' },
      { id: 'later', type: 'wait', seconds: 3600 },
      { id: 'check', type: 'condition', if: { [test]: 'mail' }, then: 'yes', else: 'no' },
      { id: 'yes', type: 'send', template_id: templateId, subject: `You ${test}`, next: 'end' },
      { id: 'no', type: 'send', template_id: templateId, subject: `You never ${test}` },
      { id: 'end', type: 'wait', seconds: 1 },
    ],
  });

  /** The runs' first message arrived, and is old enough for a hit on it to be a person's. */
  const firstMailRead = async (emails: string[]) => {
    await waitFor(() => emails.every((email) => mailTo(email).length === 1), {
      timeoutMs: 60_000,
      message: diagnostics,
    });
    // The sink can hold a message a moment before the worker records it as sent.
    const newest = await waitFor(
      async () => {
        const [{ recorded, newest }] = await env.sql<{ recorded: number; newest: Date | null }>(
          `SELECT count(r.sent_at)::int AS recorded, max(r.sent_at) AS newest
             FROM campaign_recipients r
             JOIN subscribers s ON s.id = r.subscriber_id
            WHERE s.email = ANY($1::text[])`,
          [emails],
        );
        return recorded === emails.length ? newest : undefined;
      },
      { message: diagnostics },
    );
    await waitFor(() => Date.now() > newest.getTime() + MACHINE_WINDOW_MS + 500, {
      timeoutMs: 30_000,
    });
    return new Map(emails.map((email) => [email, linksOf(mailTo(email)[0], PUBLIC_URL)]));
  };
  const hit = (path: string, agent: string) =>
    request(api.server).get(path).set('User-Agent', agent);
  /** The hour's wait is over now, rather than in an hour. */
  const endWaits = (automationId: string) =>
    env.sql(
      `UPDATE automation_runs SET next_step_at = now()
        WHERE automation_id = $1 AND status = 'waiting' AND in_wait`,
      [automationId],
    );
  const completed = (runId: string) =>
    waitFor(
      async () => {
        const run = await runOf(runId);
        return run.status === 'completed' ? run : undefined;
      },
      { timeoutMs: 60_000, message: diagnostics },
    );
  const path = (run: Run) => run.steps.map((s) => s.step_id);

  describe('conditions on opens and clicks', () => {
    it('sends whoever opened (or clicked) down `then`, and the rest (a privacy proxy aside) down `else`', async () => {
      const id = await automation(branching('opened'));
      const emails = ['reader@opens.test', 'clicker@opens.test', 'proxied@opens.test'];
      const runs: string[] = [];
      for (const email of emails) runs.push(await enrol(id, await subscribe(email)));
      const links = await firstMailRead(emails);

      await hit(links.get('reader@opens.test')!.pixel, BROWSER).expect(200);
      // Images blocked, yet the person clicked a link in it: they read it.
      const shop = links.get('clicker@opens.test')!.clicks.find((c) => c.target === SHOP)!;
      await hit(shop.path, BROWSER).expect(302);
      // Apple Mail Privacy Protection fetches every image: not the person opening it.
      await hit(links.get('proxied@opens.test')!.pixel, APPLE_PROXY).expect(200);
      await endWaits(id);

      const paths: string[][] = [];
      for (const run of runs) paths.push(path(await completed(run)));
      expect(paths).toEqual([
        ['mail', 'later', 'check', 'yes', 'end'],
        ['mail', 'later', 'check', 'yes', 'end'],
        ['mail', 'later', 'check', 'no', 'end'],
      ]);
      await waitFor(() => emails.every((email) => mailTo(email).length === 2), {
        message: diagnostics,
      });
      expect(emails.map((email) => mailTo(email).map((m) => m.headers.subject))).toEqual([
        ['The sale', 'You opened'],
        ['The sale', 'You opened'],
        ['The sale', 'You never opened'],
      ]);
      const stats = (await as('get', `/v1/automations/${id}/stats`).expect(200)).body as {
        steps: { step_id: string; entered: number; unique_opens: number }[];
      };
      expect(stats.steps).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ step_id: 'mail', entered: 3, unique_opens: 1 }),
          expect.objectContaining({ step_id: 'yes', entered: 2 }),
          expect.objectContaining({ step_id: 'no', entered: 1 }),
        ]),
      );
    }, 120_000);

    it('sends the clicker down `then`, and one who only opened (or whose scanner clicked) down `else`', async () => {
      const id = await automation(branching('clicked'));
      const clicker = await subscribe('clicker@clicks.test');
      const looker = await subscribe('looker@clicks.test');
      const clickerRun = await enrol(id, clicker);
      const lookerRun = await enrol(id, looker);
      const links = await firstMailRead(['clicker@clicks.test', 'looker@clicks.test']);

      const click = links.get('clicker@clicks.test')!.clicks.find((c) => c.target === SHOP)!;
      const redirect = await hit(click.path, BROWSER).expect(302);
      expect(redirect.headers.location).toBe(SHOP);
      const looked = links.get('looker@clicks.test')!;
      await hit(looked.pixel, BROWSER).expect(200);
      // A security gateway follows every link: not the person clicking.
      await hit(looked.clicks.find((c) => c.target === SHOP)!.path, SCANNER).expect(302);
      await endWaits(id);

      expect(path(await completed(clickerRun))).toEqual(['mail', 'later', 'check', 'yes', 'end']);
      expect(path(await completed(lookerRun))).toEqual(['mail', 'later', 'check', 'no', 'end']);
      await waitFor(
        () =>
          mailTo('clicker@clicks.test').length === 2 && mailTo('looker@clicks.test').length === 2,
        { message: diagnostics },
      );
      expect(mailTo('clicker@clicks.test')[1].headers.subject).toBe('You clicked');
      expect(mailTo('looker@clicks.test')[1].headers.subject).toBe('You never clicked');
    }, 120_000);
  });

  describe('the hidden campaigns behind send steps', () => {
    let owner: DashboardAgent;
    let auth: string;
    let automationId: string;
    let stepCampaign: string;

    beforeAll(async () => {
      owner = new DashboardAgent(api);
      const accountId = (await owner.signUp('owner@hidden.test', 'Hidden')).body.account.id;
      auth = `Bearer ${(await api.key(accountId)).key}`;
      const template = await api.make.template(accountId);
      const created = await as('post', '/v1/automations', auth).send({
        name: 'Welcome',
        trigger: { type: 'manual' },
        steps: [{ id: 'hello', type: 'send', template_id: template.id }],
      });
      automationId = created.body.id;
      await as('post', `/v1/automations/${automationId}/activate`, auth).expect(200);
      const person = await as('post', '/v1/subscribers', auth)
        .send({ email: 'someone@hidden.test' })
        .expect(201);
      const run = await as('post', `/v1/automations/${automationId}/runs`, auth)
        .send({ subscriber_id: person.body.id })
        .expect(201);
      const done = await waitFor(
        async () => {
          const body = (await as('get', `/v1/automation-runs/${run.body.id}`, auth)).body as Run;
          return body.status === 'completed' ? body : undefined;
        },
        { timeoutMs: 60_000, message: diagnostics },
      );
      // The Message-ID of a send step's message is `<campaign>.<subscriber>`.
      stepCampaign = done.steps[0].message_id!.split('.')[0];
      await waitFor(() => mailTo('someone@hidden.test').length === 1, { message: diagnostics });
    }, 90_000);

    it('answers 404 on every campaign route, on /v1 and in the dashboard', async () => {
      const base = `/v1/campaigns/${stepCampaign}`;
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const calls: [string, string, object?][] = [
        ['get', base],
        ['get', `${base}/stats`],
        ['patch', base, { name: 'Mine now' }],
        ['delete', base],
        ['post', `${base}/send`],
        ['post', `${base}/schedule`, { send_at: future }],
        ['delete', `${base}/schedule`],
        ['post', `${base}/pause`],
        ['post', `${base}/resume`],
        ['post', `${base}/cancel`],
        ['post', `${base}/test`, { emails: ['tester@hidden.test'] }],
        ['post', `${base}/duplicate`],
      ];
      for (const [method, route, body] of calls) {
        const call = as(method as 'get', route, auth);
        const response = await (body ? call.send(body) : call);
        expect([method, route, response.status]).toEqual([method, route, 404]);
        expect(response.body.error.code).toBe('not_found');
      }
      const dashboard = `/dashboard/api/campaigns/${stepCampaign}`;
      for (const route of [dashboard, `${dashboard}/reputation`, `${dashboard}/timeline`]) {
        expect([route, (await owner.get(route)).status]).toEqual([route, 404]);
      }
      expect((await owner.post(`${dashboard}/preview`, {})).status).toBe(404);
      expect(mailTo('tester@hidden.test')).toEqual([]);
    });

    it('lists it nowhere, and credits no conversion to it', async () => {
      const listed = await as('get', '/v1/campaigns?limit=100', auth).expect(200);
      expect(listed.body.data).toEqual([]);
      expect((await owner.get('/dashboard/api/campaigns').expect(200)).body.data).toEqual([]);
      // The overview's recent campaigns, beside the reputation guard's limits.
      const overview = await owner.get('/dashboard/api/campaigns/reputation').expect(200);
      expect(overview.body.campaigns).toEqual([]);
      const named = await as('post', '/v1/conversions', auth)
        .set('Idempotency-Key', 'hidden-1')
        .send({
          email: 'someone@hidden.test',
          amount_cents: 1200,
          currency: 'EUR',
          campaign_id: stepCampaign,
        });
      expect(named.status).toBe(422);
      expect(named.body.error.details[0]).toMatchObject({ field: 'campaign_id' });
    });

    it('still sends, and the automation still counts it', async () => {
      const [row] = await env.sql<{ status: string }>(
        'SELECT status::text FROM campaigns WHERE id = $1',
        [stepCampaign],
      );
      expect(row.status).toBe('sending');
      const stats = await waitFor(async () => {
        const body = (await as('get', `/v1/automations/${automationId}/stats`, auth)).body as {
          steps: { delivered: number }[];
        };
        return body.steps[0].delivered === 1 ? body : undefined;
      });
      expect(stats.steps[0]).toMatchObject({ step_id: 'hello', entered: 1, sent: 1 });
    });
  });

  describe('a step campaign the reputation guard paused', () => {
    const domain = 'guarded.test';
    const AUDIENCE = 200;
    let refusing = true;
    let auth: string;
    let id: string;

    const automationOf = async () =>
      (await as('get', `/v1/automations/${id}`, auth).expect(200)).body as {
        status: string;
        paused_reason: string | null;
      };
    const stepCampaigns = () =>
      env.sql<{ status: string; paused_reason: string | null }>(
        'SELECT status::text, paused_reason::text FROM campaigns WHERE automation_id = $1',
        [id],
      );
    const mailed = () => sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`));

    beforeAll(async () => {
      const guarded = await api.tenant('Guarded');
      auth = guarded.auth;
      const template = await api.make.template(guarded.accountId);
      const created = await as('post', '/v1/automations', auth).send({
        name: 'Welcome',
        trigger: { type: 'subscriber_created' },
        steps: [{ id: 'hello', type: 'send', template_id: template.id }],
      });
      id = created.body.id;
      await as('post', `/v1/automations/${id}/activate`, auth).expect(200);
      // A stale list: the relay refuses one address in four.
      sink.verdict = (message) => {
        const n = /^reader(\d+)@/.exec(message.to[0]);
        return refusing && message.to[0].endsWith(`@${domain}`) && n && Number(n[1]) % 4 === 0
          ? { code: 550, message: '5.1.1 no such user' }
          : undefined;
      };
      await api.make.subscribers(guarded.accountId, AUDIENCE, { domain });
    }, 60_000);
    afterAll(() => {
      sink.verdict = () => undefined;
    });

    it('pauses the automation, and its mail stops', async () => {
      await waitFor(async () => (await automationOf()).status === 'paused', {
        timeoutMs: 90_000,
        message: diagnostics,
      });
      expect(await stepCampaigns()).toEqual([{ status: 'paused', paused_reason: 'bounce_rate' }]);
      expect((await automationOf()).paused_reason).toBe('bounce_rate');
      // What was handed to the relay when it paused is recorded (nothing is in flight, and the
      // relay got exactly what the ledger says was sent); the rest waits.
      const ledger = async () => {
        const rows = await env.sql<{ status: string; n: string }>(
          `SELECT r.status::text, count(*) AS n FROM campaign_recipients r
             JOIN campaigns c ON c.id = r.campaign_id
            WHERE c.automation_id = $1 GROUP BY 1`,
          [id],
        );
        return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
      };
      const settled = await waitFor(async () => {
        const counts = await ledger();
        return !counts.sending && (counts.sent ?? 0) === mailed().length ? counts : undefined;
      });
      expect(settled.pending).toBeGreaterThan(0);
      const [audit] = await env.sql<{ metadata: Record<string, unknown> }>(
        `SELECT metadata FROM audit_events
          WHERE action = 'automation.paused' AND metadata->>'automation_id' = $1`,
        [id],
      );
      expect(audit.metadata).toMatchObject({ reason: 'bounce_rate' });
    }, 120_000);

    it('sends the rest once the automation is activated again, each message once', async () => {
      refusing = false;
      await as('post', `/v1/automations/${id}/activate`, auth).expect(200);
      expect(await stepCampaigns()).toEqual([{ status: 'sending', paused_reason: null }]);
      expect(await automationOf()).toMatchObject({ status: 'active', paused_reason: null });
      const mailable = async () =>
        (
          await env.sql<{ email: string }>(
            `SELECT email FROM subscribers WHERE email LIKE $1 AND status = 'subscribed'`,
            [`%@${domain}`],
          )
        ).map((row) => row.email);
      await waitFor(
        async () => {
          const expected = await mailable();
          return expected.every((email) => mailTo(email).length > 0);
        },
        { timeoutMs: 90_000, message: diagnostics },
      );
      const addresses = mailed().map((m) => m.to[0]);
      expect(addresses.length).toBe(new Set(addresses).size);
      expect(new Set(addresses)).toEqual(new Set(await mailable()));
      // The refused addresses were hard bounces: suppressed, never retried.
      const [{ bounced }] = await env.sql<{ bounced: string }>(
        `SELECT count(*) AS bounced FROM subscribers WHERE email LIKE $1 AND status = 'bounced'`,
        [`%@${domain}`],
      );
      expect(Number(bounced) + addresses.length).toBe(AUDIENCE);
    }, 120_000);
  });
});
