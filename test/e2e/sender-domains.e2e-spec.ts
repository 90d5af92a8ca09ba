import { authenticate } from 'mailauth';
import request from 'supertest';
import { DomainRecheck } from '../../src/domains/domain-recheck';
import { SecretBox } from '../../src/platform/crypto/secret-box';
import { waitUntilSent } from '../support/campaign-fixtures';
import { TestDnsServer } from '../support/dns-server';
import { ReceivedMessage, SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const BOUNCE_DOMAIN = 'bounce.herald.test';

interface DomainRecord {
  purpose: string;
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  status: string;
  reason: string | null;
}
interface Domain {
  id: string;
  name: string;
  status: string;
  records: DomainRecord[];
  verified_at: string | null;
  dkim_selector: string;
  pending_dkim_selector: string | null;
}

/**
 * Sender domains end to end: a DNS server on loopback serves (or withholds) the records Herald
 * hands out, an SMTP sink receives the mail, and mailauth checks it as a receiving server
 * would (DKIM against the published key, SPF from the sending IP, DMARC alignment).
 */
describe('sender domains', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let a: { accountId: string; auth: string };
  let b: { accountId: string; auth: string };
  let seq = 0;

  const call = (auth: string, method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    request(api.server)[method](path).set('Authorization', auth);
  const addDomain = async (auth: string, name: string): Promise<Domain> =>
    (await call(auth, 'post', '/v1/domains').send({ name }).expect(201)).body as Domain;
  const verify = async (auth: string, id: string): Promise<Domain> =>
    (await call(auth, 'post', `/v1/domains/${id}/verify`).expect(200)).body as Domain;
  const record = (domain: Domain, purpose: string, selector?: string) =>
    domain.records.find(
      (r) => r.purpose === purpose && (!selector || r.name.startsWith(`${selector}.`)),
    )!;

  /** Publishes every record the domain lists, as its owner would at their DNS provider. */
  const publish = (domain: Domain, only?: (r: DomainRecord) => boolean) => {
    for (const r of domain.records.filter(only ?? (() => true))) {
      if (r.type === 'MX') dns.setMx(r.name, r.value, r.priority);
      else dns.setTxt(r.name, r.value);
    }
  };

  const sendTransactional = (auth: string, from: string, to = `reader-${++seq}@example.com`) =>
    call(auth, 'post', '/v1/transactional/send').send({
      to,
      from,
      subject: 'Hello',
      text: 'Hi there',
      html: '<p>Hi there</p>',
    });

  const received = (to: string): Promise<ReceivedMessage> =>
    waitFor(() => sink.messages.find((m) => m.to.includes(to)), {
      message: `no message to ${to}`,
    });

  /** What a receiving MTA at 127.0.0.1's peer would conclude about the message. */
  const authenticateAsReceiver = (message: ReceivedMessage) =>
    authenticate(Buffer.from(message.raw), {
      ip: '127.0.0.1',
      helo: 'herald.test',
      mta: 'mx.example.com',
      sender: message.from,
      resolver: dns.resolver(),
      disableArc: true,
      disableBimi: true,
    });

  const dkimResults = async (message: ReceivedMessage) =>
    (await authenticateAsReceiver(message)).dkim.results.map((result) => ({
      domain: result.signingDomain,
      selector: result.selector,
      result: result.status.result,
    }));

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      DNS_SERVERS: dns.address,
      BOUNCE_DOMAIN,
      RATE_LIMIT: '1000',
      RATE_LIMIT_SEND: '1000',
    });
    api = await TestApi.start(env);
    a = await api.tenant('Acme');
    b = await api.tenant('Beta');
    // The operator's SPF record, which every sender domain's SPF includes: Herald's relay is
    // the loopback address the sink sees.
    dns.setTxt(BOUNCE_DOMAIN, 'v=spf1 ip4:127.0.0.1 -all');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
    await dns?.close();
  });

  describe('adding, listing and deleting', () => {
    it('adds a domain with its own key and answers the records to publish', async () => {
      const domain = await addDomain(a.auth, ' Adding.Example. ');
      expect(domain).toMatchObject({
        name: 'adding.example',
        status: 'pending',
        verified_at: null,
        pending_dkim_selector: null,
      });
      expect(domain.dkim_selector).toMatch(/^herald-[a-z2-7]{8}$/);
      expect(
        domain.records.map(({ purpose, type, name, status }) => [purpose, type, name, status]),
      ).toEqual([
        ['dkim', 'TXT', `${domain.dkim_selector}._domainkey.adding.example`, 'pending'],
        ['spf', 'TXT', 'herald-bounces.adding.example', 'pending'],
        ['return_path', 'MX', 'herald-bounces.adding.example', 'pending'],
        ['dmarc', 'TXT', '_dmarc.adding.example', 'pending'],
      ]);
      expect(record(domain, 'dkim').value).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]+$/);
      expect(record(domain, 'spf').value).toBe(`v=spf1 include:${BOUNCE_DOMAIN} ~all`);
      expect(record(domain, 'return_path')).toMatchObject({ value: BOUNCE_DOMAIN, priority: 10 });
      expect(record(domain, 'dmarc').value).toBe('v=DMARC1; p=none');

      // The private key is stored sealed, and opens only under this installation's secret.
      const [row] = await env.sql<{ id: string; private_key_encrypted: string }>(
        'SELECT id, private_key_encrypted FROM sender_domain_keys WHERE domain_id = $1',
        [domain.id],
      );
      expect(row.private_key_encrypted).not.toContain('PRIVATE KEY');
      const box = new SecretBox(env.config.secret, 'dkim-private-key');
      expect(box.open(row.private_key_encrypted, row.id)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    });

    it('refuses the same name twice in one account, whatever its case', async () => {
      await addDomain(a.auth, 'twice.example');
      const again = await call(a.auth, 'post', '/v1/domains').send({ name: 'TWICE.example' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('conflict');
    });

    it('gives another account adding the same name its own key', async () => {
      const mine = await addDomain(a.auth, 'shared-name.example');
      const theirs = await addDomain(b.auth, 'shared-name.example');
      expect(theirs.id).not.toBe(mine.id);
      expect(theirs.dkim_selector).not.toBe(mine.dkim_selector);
      expect(record(theirs, 'dkim').value).not.toBe(record(mine, 'dkim').value);
    });

    it.each([
      ['a URL', 'https://acme.example'],
      ['an address', 'news@acme.example'],
      ['one label', 'acme'],
      ['an empty label', 'acme..example'],
      ['an IP address', '127.0.0.1'],
      ['300 characters', 'x'.repeat(300)],
      ['a number', 42],
    ])('refuses %s as a name with 422', async (_, name) => {
      const response = await call(a.auth, 'post', '/v1/domains').send({ name });
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        expect.objectContaining({ field: 'name', code: expect.any(String) }),
      ]);
    });

    it('wants a name (400) and nothing else (422 unknown_field)', async () => {
      expect((await call(a.auth, 'post', '/v1/domains').send({})).status).toBe(400);
      const extra = await call(a.auth, 'post', '/v1/domains').send({ name: 'x.example', dkim: 1 });
      expect(extra.status).toBe(422);
      expect(extra.body.error.details).toEqual([
        expect.objectContaining({ field: 'dkim', code: 'unknown_field' }),
      ]);
    });

    it('lists in cursor pages bound to the account', async () => {
      const tenant = await api.tenant('Lister');
      for (const name of ['one.example', 'two.example', 'three.example']) {
        await addDomain(tenant.auth, name);
      }
      const first = await call(tenant.auth, 'get', '/v1/domains?limit=2').expect(200);
      const names = (first.body as { data: Domain[] }).data.map((d) => d.name);
      expect(names).toEqual(['three.example', 'two.example']);
      const second = await call(
        tenant.auth,
        'get',
        `/v1/domains?limit=2&cursor=${first.body.next_cursor}`,
      ).expect(200);
      expect(second.body).toMatchObject({ data: [{ name: 'one.example' }], next_cursor: null });
      const foreign = await call(a.auth, 'get', `/v1/domains?cursor=${first.body.next_cursor}`);
      expect(foreign.status).toBe(400);
    });

    it('reads and deletes only the account’s own domains', async () => {
      const domain = await addDomain(a.auth, 'deleting.example');
      await call(b.auth, 'get', `/v1/domains/${domain.id}`).expect(404);
      await call(b.auth, 'delete', `/v1/domains/${domain.id}`).expect(404);
      await call(a.auth, 'get', `/v1/domains/${domain.id}`).expect(200);
      await call(a.auth, 'delete', `/v1/domains/${domain.id}`).expect(204);
      await call(a.auth, 'get', `/v1/domains/${domain.id}`).expect(404);
      await call(a.auth, 'get', '/v1/domains/not-an-id').expect(404);
      expect(
        await env.sql('SELECT 1 FROM sender_domain_keys WHERE domain_id = $1', [domain.id]),
      ).toEqual([]);
    });
  });

  describe('verification', () => {
    it('says which records are missing or wrong, and verifies once DKIM is found', async () => {
      const domain = await addDomain(a.auth, 'verifying.example');
      const nothing = await verify(a.auth, domain.id);
      expect(nothing.status).toBe('failed');
      expect(nothing.records.map((r) => r.status)).toEqual([
        'missing',
        'missing',
        'missing',
        'missing',
      ]);
      expect(record(nothing, 'dkim').reason).toContain(
        `No TXT record at ${record(domain, 'dkim').name}`,
      );

      // A key pasted from another domain, an MX elsewhere, an SPF without Herald's include.
      dns.setTxt(record(domain, 'dkim').name, 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOC');
      dns.setMx('herald-bounces.verifying.example', 'mx.elsewhere.example');
      dns.setTxt('herald-bounces.verifying.example', 'v=spf1 include:_spf.google.com ~all');
      const wrong = await verify(a.auth, domain.id);
      expect(wrong.status).toBe('failed');
      expect(record(wrong, 'dkim')).toMatchObject({
        status: 'mismatch',
        reason: expect.stringContaining('holds another key'),
      });
      expect(record(wrong, 'return_path')).toMatchObject({
        status: 'mismatch',
        reason: expect.stringContaining('points to mx.elsewhere.example'),
      });
      expect(record(wrong, 'spf')).toMatchObject({
        status: 'mismatch',
        reason: expect.stringContaining(`include:${BOUNCE_DOMAIN}`),
      });

      publish(domain);
      const verified = await verify(a.auth, domain.id);
      expect(verified.status).toBe('verified');
      expect(verified.verified_at).toEqual(expect.any(String));
      expect(verified.records.map((r) => [r.status, r.reason])).toEqual(
        Array(4).fill(['found', null]),
      );
      expect((await call(a.auth, 'get', `/v1/domains/${domain.id}`).expect(200)).body).toEqual(
        verified,
      );
    });

    it('keeps a verified domain verified while its DNS server fails, and says so', async () => {
      const domain = await addDomain(a.auth, 'flaky.example');
      publish(domain);
      const verified = await verify(a.auth, domain.id);
      const dkimName = record(domain, 'dkim').name;
      dns.setFailing(dkimName, true);
      try {
        const flaky = await verify(a.auth, domain.id);
        expect(flaky.status).toBe('verified');
        expect(flaky.verified_at).toBe(verified.verified_at);
        expect(record(flaky, 'dkim')).toMatchObject({
          status: 'found',
          reason: expect.stringContaining('failed (ESERVFAIL); the previous result stands'),
        });
      } finally {
        dns.setFailing(dkimName, false);
      }
    });

    it('re-checks every domain in the workers: a removed record fails the domain', async () => {
      const domain = await addDomain(a.auth, 'rechecked.example');
      publish(domain);
      await verify(a.auth, domain.id);
      dns.remove(record(domain, 'dkim').name, 'TXT');
      // Every domain checked before now is due.
      expect(await api.app.get(DomainRecheck).run(0)).toBeGreaterThan(0);
      const after = (await call(a.auth, 'get', `/v1/domains/${domain.id}`).expect(200)).body;
      expect(after).toMatchObject({ status: 'failed', verified_at: null });
      expect(record(after, 'dkim').status).toBe('missing');
      const events = await env.sql<{ action: string }>(
        `SELECT action FROM audit_events WHERE metadata->>'domain_id' = $1 ORDER BY id`,
        [domain.id],
      );
      expect(events.map((e) => e.action)).toEqual([
        'sender_domain.added',
        'sender_domain.verified',
        'sender_domain.failed',
      ]);
    });
  });

  describe('sending', () => {
    let acme: Domain;

    beforeAll(async () => {
      acme = await addDomain(a.auth, 'acme.example');
      publish(acme);
      dns.setTxt('_dmarc.acme.example', 'v=DMARC1; p=reject');
      expect((await verify(a.auth, acme.id)).status).toBe('verified');
    });

    it('refuses a transactional From on an unverified domain', async () => {
      await addDomain(a.auth, 'unverified.example');
      for (const from of ['news@unverified.example', 'Someone <x@nowhere.example>']) {
        const response = await sendTransactional(a.auth, from);
        expect(response.status).toBe(422);
        expect(response.body.error).toMatchObject({
          code: 'validation_failed',
          details: [{ field: 'from', code: 'unverified_domain', message: expect.any(String) }],
        });
      }
    });

    it('delivers verified mail signed with the domain key; DKIM, SPF and DMARC pass', async () => {
      const to = `signed-${++seq}@example.com`;
      await sendTransactional(a.auth, 'Acme <news@Acme.Example>', to).expect(202);
      const message = await received(to);
      // The envelope sender is the message's own bounce address at the domain's bounce
      // subdomain, so SPF passes aligned with the From domain.
      expect(message.from).toMatch(/^b-[a-z2-7]{36}@herald-bounces\.acme\.example$/);

      const verdict = await authenticateAsReceiver(message);
      expect(verdict.dkim.results).toHaveLength(1);
      expect(verdict.dkim.results[0]).toMatchObject({
        signingDomain: 'acme.example',
        selector: acme.dkim_selector,
        status: { result: 'pass' },
      });
      expect(verdict.spf).toMatchObject({
        domain: 'herald-bounces.acme.example',
        status: { result: 'pass' },
      });
      expect(verdict.dmarc).toMatchObject({
        domain: 'acme.example',
        policy: 'reject',
        status: { result: 'pass' },
        alignment: {
          dkim: { result: 'acme.example' },
          spf: { result: 'herald-bounces.acme.example' },
        },
      });
    });

    it('checks a campaign’s From at create, patch and send, and signs its mail', async () => {
      const campaign = (from: string) => ({
        name: `Launch ${++seq}`,
        subject: 'Hello {{first_name}}',
        from,
        text: 'Hi {{first_name}}',
      });
      const refused = await call(a.auth, 'post', '/v1/campaigns').send(
        campaign('news@unverified.example'),
      );
      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ field: 'from', code: 'unverified_domain' }),
      ]);

      const created = await call(a.auth, 'post', '/v1/campaigns')
        .send(campaign('Acme <news@acme.example>'))
        .expect(201);
      const patched = await call(a.auth, 'patch', `/v1/campaigns/${created.body.id}`).send({
        from: 'news@unverified.example',
      });
      expect(patched.status).toBe(422);
      expect(patched.body.error.details[0]).toMatchObject({ code: 'unverified_domain' });

      const [reader] = await api.make.subscribers(a.accountId, 1, { prefix: `camp${++seq}-` });
      await call(a.auth, 'post', `/v1/campaigns/${created.body.id}/send`).expect(202);
      await waitUntilSent(api.server, a.auth, created.body.id);
      const message = await received(reader.email);
      expect(await dkimResults(message)).toEqual([
        { domain: 'acme.example', selector: acme.dkim_selector, result: 'pass' },
      ]);
    });

    it('refuses a campaign send once the domain stopped verifying', async () => {
      const domain = await addDomain(a.auth, 'lapsing.example');
      publish(domain);
      await verify(a.auth, domain.id);
      const created = await call(a.auth, 'post', '/v1/campaigns')
        .send({ name: 'Lapse', subject: 'S', from: 'news@lapsing.example', text: 'T' })
        .expect(201);
      dns.remove(record(domain, 'dkim').name, 'TXT');
      expect((await verify(a.auth, domain.id)).status).toBe('failed');
      const send = await call(a.auth, 'post', `/v1/campaigns/${created.body.id}/send`);
      expect(send.status).toBe(422);
      expect(send.body.error.details[0]).toMatchObject({
        field: 'from',
        code: 'unverified_domain',
      });
      const campaign = await call(a.auth, 'get', `/v1/campaigns/${created.body.id}`).expect(200);
      expect(campaign.body.status).toBe('draft');
    });

    it('does not let account A send as account B’s verified domain', async () => {
      const beta = await addDomain(b.auth, 'beta.example');
      publish(beta);
      expect((await verify(b.auth, beta.id)).status).toBe('verified');
      await sendTransactional(b.auth, 'news@beta.example').expect(202);

      // A has no such domain...
      const response = await sendTransactional(a.auth, 'news@beta.example');
      expect(response.status).toBe(422);
      expect(response.body.error.details[0]).toMatchObject({ code: 'unverified_domain' });
      // ...and adding it gives A its own key, which B's DNS does not publish.
      const mine = await addDomain(a.auth, 'beta.example');
      const checked = await verify(a.auth, mine.id);
      expect(checked.status).toBe('failed');
      expect(record(checked, 'dkim').status).toBe('missing');
      expect((await sendTransactional(a.auth, 'news@beta.example')).status).toBe(422);
    });
  });

  describe('key rotation', () => {
    it('switches to a new selector once it is published, with every message signed', async () => {
      const domain = await addDomain(a.auth, 'rotating.example');
      await call(a.auth, 'post', `/v1/domains/${domain.id}/rotate`).expect(409); // not verified yet
      publish(domain);
      await verify(a.auth, domain.id);
      const oldSelector = domain.dkim_selector;
      const signedBy = async () => {
        const to = `rot-${++seq}@example.com`;
        await sendTransactional(a.auth, 'news@rotating.example', to).expect(202);
        return dkimResults(await received(to));
      };
      const pass = (selector: string) => [{ domain: 'rotating.example', selector, result: 'pass' }];

      const rotating = (await call(a.auth, 'post', `/v1/domains/${domain.id}/rotate`).expect(200))
        .body as Domain;
      expect(rotating).toMatchObject({ status: 'verified', dkim_selector: oldSelector });
      const newSelector = rotating.pending_dkim_selector!;
      expect(newSelector).toMatch(/^herald-/);
      expect(newSelector).not.toBe(oldSelector);
      expect(record(rotating, 'dkim', newSelector)).toMatchObject({ status: 'pending' });
      await call(a.auth, 'post', `/v1/domains/${domain.id}/rotate`).expect(409); // one at a time

      // Until the new record is found, the old key signs: mail never waits or goes unsigned.
      expect(await signedBy()).toEqual(pass(oldSelector));
      const unpublished = await verify(a.auth, domain.id);
      expect(unpublished).toMatchObject({
        status: 'verified',
        dkim_selector: oldSelector,
        pending_dkim_selector: newSelector,
      });
      expect(record(unpublished, 'dkim', newSelector).status).toBe('missing');
      expect(await signedBy()).toEqual(pass(oldSelector));

      publish(rotating, (r) => r.name.startsWith(`${newSelector}.`));
      const switched = await verify(a.auth, domain.id);
      expect(switched).toMatchObject({
        status: 'verified',
        dkim_selector: newSelector,
        pending_dkim_selector: null,
      });
      expect(switched.records.filter((r) => r.purpose === 'dkim')).toHaveLength(1);
      expect(await signedBy()).toEqual(pass(newSelector));

      const keys = await env.sql<{ selector: string; status: string }>(
        'SELECT selector, status FROM sender_domain_keys WHERE domain_id = $1 ORDER BY id',
        [domain.id],
      );
      expect(keys).toEqual([
        { selector: oldSelector, status: 'retired' },
        { selector: newSelector, status: 'active' },
      ]);
    });
  });
});

describe('sender domains when the operator allows any From', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    api = await TestApi.start(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  it('sends from a domain nobody verified (development only)', async () => {
    const { auth } = await api.tenant();
    await request(api.server)
      .post('/v1/transactional/send')
      .set('Authorization', auth)
      .send({ to: 'ada@example.com', from: 'dev@unverified.example', subject: 'S', text: 'T' })
      .expect(202);
    await sink.waitFor(1);
    expect(sink.messages[0].headers['dkim-signature']).toBeUndefined();
  });
});
