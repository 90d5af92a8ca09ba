import {
  createHmac,
  generateKeyPairSync,
  KeyObject,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';
import { createServer, globalAgent, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { createHttpApp } from '../../src/http-app';
import { snsStringToSign, SnsMessage } from '../../src/provider-webhooks/ses';
import { waitUntilSent } from '../support/campaign-fixtures';
import { selfSignedCertificate, TestCertificate } from '../support/self-signed-certificate';
import { ReceivedMessage, SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';

/**
 * Provider webhooks with real signatures made in the test: an SNS signing certificate served
 * by a loopback https server (SNS_CERT_URL_PREFIXES points at it), SendGrid's ECDSA key,
 * Mailgun's HMAC key, Postmark's basic auth. Forged notifications get 401 and change nothing.
 */
const SES_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ses-feedback';

describe('provider webhooks', () => {
  const postmark = { user: 'postmark-hook', password: randomBytes(12).toString('hex') };
  const mailgunKey = randomBytes(24).toString('hex');
  const sendgrid = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: { accountId: string; auth: string };
  let certServer: Server;
  let certBase: string;
  let snsSigner: TestCertificate;
  let tlsCertificate: TestCertificate;
  const confirmations: string[] = [];
  const previousCa = globalAgent.options.ca;

  beforeAll(async () => {
    snsSigner = selfSignedCertificate('sns.test-region.amazonaws.example');
    tlsCertificate = selfSignedCertificate('127.0.0.1', { ipAddresses: ['127.0.0.1'] });
    certServer = createServer(
      { key: tlsCertificate.key, cert: tlsCertificate.cert },
      (req, res) => {
        if (req.url === '/SimpleNotificationService.pem') {
          res.end(snsSigner.cert);
          return;
        }
        if (req.url?.startsWith('/confirm?')) {
          confirmations.push(req.url);
          res.end('<ConfirmSubscriptionResponse/>');
          return;
        }
        res.statusCode = 404;
        res.end();
      },
    );
    await new Promise<void>((resolve) => certServer.listen(0, '127.0.0.1', resolve));
    certBase = `https://127.0.0.1:${(certServer.address() as AddressInfo).port}/`;
    // The test's TLS certificate is trusted like a public CA would be (the equivalent of
    // NODE_EXTRA_CA_CERTS for this process).
    globalAgent.options.ca = [tlsCertificate.cert];

    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      // These tests are about what comes back, not sender domains.
      ALLOW_UNVERIFIED_FROM: '1',
      SNS_CERT_URL_PREFIXES: certBase,
      SNS_TOPIC_ARNS: `${SES_TOPIC}, arn:aws:sns:us-east-1:123456789012:other-feedback`,
      POSTMARK_WEBHOOK_USER: postmark.user,
      POSTMARK_WEBHOOK_PASSWORD: postmark.password,
      SENDGRID_WEBHOOK_PUBLIC_KEY: sendgrid.publicKey
        .export({ type: 'spki', format: 'der' })
        .toString('base64'),
      MAILGUN_WEBHOOK_SIGNING_KEY: mailgunKey,
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
    });
    api = await TestApi.start(env);
    tenant = await api.tenant('Hooks');
  });
  afterAll(async () => {
    globalAgent.options.ca = previousCa;
    await api?.close();
    await env?.dispose();
    await sink?.close();
    await new Promise((resolve) => certServer?.close(resolve));
  });

  const get = (path: string) => request(api.server).get(path).set('Authorization', tenant.auth);

  /** Everything a forged notification must leave as it was. */
  const state = async () => ({
    subscribers: await env.sql(
      'SELECT id, status, stat_hard_bounces, stat_soft_bounces FROM subscribers ORDER BY id',
    ),
    suppressions: await env.sql('SELECT email_normalized, reason FROM suppressions ORDER BY 1'),
    feedback: await env.sql('SELECT count(*)::int AS n FROM delivery_feedback'),
    campaigns: await env.sql(
      'SELECT bounce_count, soft_bounce_count, complaint_count FROM campaigns ORDER BY id',
    ),
  });

  const statusOf = async (email: string) =>
    (
      await env.sql<{ status: string }>('SELECT status FROM subscribers WHERE email = $1', [email])
    )[0]?.status;
  const reasonOf = async (email: string) =>
    (
      await env.sql<{ reason: string }>(
        'SELECT reason FROM suppressions WHERE email_normalized = $1',
        [email],
      )
    )[0]?.reason;

  let people: { id: string; email: string }[];
  let messages: Map<string, ReceivedMessage>;
  let campaignId: string;

  beforeAll(async () => {
    people = await api.make.subscribers(tenant.accountId, 8, { domain: 'hooks.test' });
    const created = await request(api.server)
      .post('/v1/campaigns')
      .set('Authorization', tenant.auth)
      .send({
        name: 'Hooked',
        subject: 'Hi',
        from: 'Acme <news@acme.test>',
        html: '<p>Hi</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
        text: 'Hi {{unsubscribe_url}}',
      })
      .expect(201);
    campaignId = created.body.id;
    await request(api.server)
      .post(`/v1/campaigns/${campaignId}/send`)
      .set('Authorization', tenant.auth)
      .expect(202);
    await waitUntilSent(api.server, tenant.auth, campaignId);
    messages = new Map(sink.messages.map((m) => [m.to[0], m]));
  });

  const messageIdOf = (index: number) => messages.get(people[index].email)!.headers['message-id'];

  describe('Amazon SES through SNS', () => {
    function snsMessage(
      fields: Partial<SnsMessage> & Pick<SnsMessage, 'Type' | 'Message'>,
      version: '1' | '2' = '2',
      signer: KeyObject = snsSigner.privateKey,
    ): SnsMessage {
      const message = {
        MessageId: randomUUID(),
        TopicArn: SES_TOPIC,
        Timestamp: new Date().toISOString(),
        SignatureVersion: version,
        SigningCertURL: `${certBase}SimpleNotificationService.pem`,
        Signature: '',
        ...fields,
      };
      message.Signature = sign(
        version === '1' ? 'sha1' : 'sha256',
        Buffer.from(snsStringToSign(message)),
        signer,
      ).toString('base64');
      return message;
    }
    const sesBounce = (index: number, bounceType: string) =>
      JSON.stringify({
        notificationType: 'Bounce',
        bounce: {
          bounceType,
          bouncedRecipients: [{ emailAddress: people[index].email, status: '5.1.1' }],
        },
        mail: { commonHeaders: { messageId: messageIdOf(index) } },
      });
    const post = (message: SnsMessage | string) =>
      request(api.server)
        .post('/webhooks/ses')
        .set('Content-Type', 'text/plain; charset=UTF-8')
        .send(typeof message === 'string' ? message : JSON.stringify(message));

    it('applies a hard bounce (SignatureVersion 1) matched by Message-ID, once', async () => {
      const message = snsMessage({ Type: 'Notification', Message: sesBounce(0, 'Permanent') }, '1');
      const first = await post(message).expect(200);
      expect(first.body).toEqual({ received: 1, applied: 1 });
      expect(await statusOf(people[0].email)).toBe('bounced');
      expect(await reasonOf(people[0].email)).toBe('hard_bounce');
      // SNS delivers again (same MessageId): counted once.
      const again = await post(message).expect(200);
      expect(again.body).toEqual({ received: 1, applied: 0 });
      const stats = await get(`/v1/campaigns/${campaignId}/stats`).expect(200);
      expect(stats.body.hard_bounces).toBe(1);
    });

    it('applies a complaint (SignatureVersion 2)', async () => {
      const message = snsMessage({
        Type: 'Notification',
        Message: JSON.stringify({
          notificationType: 'Complaint',
          complaint: { complainedRecipients: [{ emailAddress: people[1].email }] },
          mail: { commonHeaders: { messageId: messageIdOf(1) } },
        }),
      });
      await post(message).expect(200);
      expect(await statusOf(people[1].email)).toBe('complained');
      expect(await reasonOf(people[1].email)).toBe('complaint');
    });

    it('refuses forged, altered or untrusted messages with 401 and changes nothing', async () => {
      const before = await state();
      const altered = snsMessage({ Type: 'Notification', Message: sesBounce(2, 'Permanent') });
      altered.Message = sesBounce(3, 'Permanent');
      const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const wrongSigner = snsMessage(
        { Type: 'Notification', Message: sesBounce(2, 'Permanent') },
        '2',
        otherKey,
      );
      const untrusted = snsMessage({
        Type: 'Notification',
        Message: sesBounce(2, 'Permanent'),
        SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService.pem',
      });
      for (const forged of [
        altered,
        wrongSigner,
        untrusted,
        'not json',
        '{"Type":"Notification"}',
      ]) {
        const response = await post(forged).expect(401);
        expect(response.body.error.code).toBe('invalid_credential');
      }
      expect(await state()).toEqual(before);
    });

    it('confirms a subscription by fetching its (trusted, signed) SubscribeURL', async () => {
      const token = randomBytes(16).toString('hex');
      const message = snsMessage({
        Type: 'SubscriptionConfirmation',
        Message: 'You have chosen to subscribe to the topic …',
        Token: token,
        SubscribeURL: `${certBase}confirm?Action=ConfirmSubscription&Token=${token}`,
      });
      await post(message).expect(200);
      expect(confirmations).toEqual([`/confirm?Action=ConfirmSubscription&Token=${token}`]);
    });
    it('refuses notifications and subscriptions of a topic not in SNS_TOPIC_ARNS, never confirming', async () => {
      const before = await state();
      const foreignTopic = 'arn:aws:sns:eu-west-1:999999999999:someone-elses-topic';
      // Validly signed by SNS: anyone can make a topic, subscribe Herald and publish to it.
      const bounce = snsMessage({
        Type: 'Notification',
        TopicArn: foreignTopic,
        Message: sesBounce(5, 'Permanent'),
      });
      const response = await post(bounce).expect(401);
      expect(response.body).toEqual({
        error: { code: 'invalid_credential', message: expect.any(String), details: [] },
      });
      const token = randomBytes(16).toString('hex');
      const subscribe = snsMessage({
        Type: 'SubscriptionConfirmation',
        TopicArn: foreignTopic,
        Message: 'You have chosen to subscribe to the topic …',
        Token: token,
        SubscribeURL: `${certBase}confirm?Action=ConfirmSubscription&Token=${token}`,
      });
      await post(subscribe).expect(401);
      expect(confirmations.some((url) => url.includes(token))).toBe(false);
      expect(await state()).toEqual(before);
    });
  });

  describe('SendGrid', () => {
    const post = (
      events: object[],
      key: KeyObject = sendgrid.privateKey,
      timestamp = String(Math.floor(Date.now() / 1000)),
    ) => {
      const body = JSON.stringify(events);
      const signature = sign('sha256', Buffer.from(timestamp + body), {
        key,
        dsaEncoding: 'der',
      }).toString('base64');
      return request(api.server)
        .post('/webhooks/sendgrid')
        .set('Content-Type', 'application/json')
        .set('X-Twilio-Email-Event-Webhook-Signature', signature)
        .set('X-Twilio-Email-Event-Webhook-Timestamp', timestamp)
        .send(body);
    };
    const spamReport = () => [
      {
        email: people[2].email,
        event: 'spamreport',
        sg_event_id: randomUUID(),
        'smtp-id': messageIdOf(2),
      },
    ];

    it('refuses a batch signed with another key, or unsigned, and changes nothing', async () => {
      const before = await state();
      const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
      await post(spamReport(), other).expect(401);
      await request(api.server).post('/webhooks/sendgrid').send(spamReport()).expect(401);
      expect(await state()).toEqual(before);
    });

    it('refuses a signature whose timestamp is more than 15 minutes from now', async () => {
      const before = await state();
      const now = Math.floor(Date.now() / 1000);
      for (const skew of [-16 * 60, 16 * 60]) {
        const response = await post(spamReport(), sendgrid.privateKey, String(now + skew));
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('invalid_credential');
      }
      expect(await state()).toEqual(before);
    });

    it('applies a signed spam report matched by smtp-id, and ignores deliveries', async () => {
      const response = await post([
        ...spamReport(),
        { email: people[7].email, event: 'delivered', sg_event_id: randomUUID() },
      ]).expect(200);
      expect(response.body).toEqual({ received: 1, applied: 1 });
      expect(await statusOf(people[2].email)).toBe('complained');
    });
  });

  describe('Mailgun', () => {
    const signed = (
      eventData: object,
      key = mailgunKey,
      timestamp = String(Math.floor(Date.now() / 1000)),
    ) => {
      const token = randomBytes(25).toString('hex');
      const signature = createHmac('sha256', key)
        .update(timestamp + token)
        .digest('hex');
      return { signature: { timestamp, token, signature }, 'event-data': eventData };
    };
    const failed = (index: number, severity: string) => ({
      id: randomUUID(),
      event: 'failed',
      severity,
      recipient: people[index].email,
      message: { headers: { 'message-id': messageIdOf(index).replace(/^<|>$/g, '') } },
      'delivery-status': { code: 452, 'enhanced-code': '4.2.2' },
    });

    it('refuses a wrong HMAC and changes nothing', async () => {
      const before = await state();
      await request(api.server)
        .post('/webhooks/mailgun')
        .send(signed(failed(3, 'temporary'), 'not-the-key'))
        .expect(401);
      expect(await state()).toEqual(before);
    });

    it('refuses a signature whose timestamp is more than 15 minutes from now', async () => {
      const before = await state();
      const now = Math.floor(Date.now() / 1000);
      for (const skew of [-16 * 60, 16 * 60]) {
        const response = await request(api.server)
          .post('/webhooks/mailgun')
          .send(signed(failed(6, 'permanent'), mailgunKey, String(now + skew)));
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('invalid_credential');
      }
      expect(await state()).toEqual(before);
    });

    it('refuses a token seen before, in this process or another one', async () => {
      // A second API process on the same database and Redis: the memory is shared.
      const other = await createHttpApp(env.config, { workers: false });
      try {
        // Within the window but not fresh: still accepted once.
        const body = signed(
          { ...failed(6, 'temporary'), event: 'accepted' },
          mailgunKey,
          String(Math.floor(Date.now() / 1000) - 14 * 60),
        );
        await request(api.server).post('/webhooks/mailgun').send(body).expect(200);
        for (const server of [api.server, other.getHttpServer()]) {
          const replay = await request(server).post('/webhooks/mailgun').send(body);
          expect(replay.status).toBe(401);
          expect(replay.body.error.code).toBe('invalid_credential');
        }
      } finally {
        await other.close();
      }
    });

    it('counts a temporary failure as a soft bounce (matched by Message-ID)', async () => {
      await request(api.server)
        .post('/webhooks/mailgun')
        .send(signed(failed(3, 'temporary')))
        .expect(200);
      const subscriber = await get(`/v1/subscribers/${people[3].id}`).expect(200);
      expect(subscriber.body).toMatchObject({
        status: 'subscribed',
        statistics: { soft_bounces: 1, hard_bounces: 0 },
      });
      const stats = await get(`/v1/campaigns/${campaignId}/stats`).expect(200);
      expect(stats.body.soft_bounces).toBe(1);
    });

    it('changes nothing when the Message-ID names someone other than the recipient', async () => {
      const before = await state();
      const mismatched = { ...failed(4, 'permanent'), recipient: people[5].email };
      const response = await request(api.server)
        .post('/webhooks/mailgun')
        .send(signed(mismatched))
        .expect(200);
      expect(response.body).toEqual({ received: 1, applied: 0 });
      expect(await state()).toEqual(before);
    });
  });

  describe('Postmark', () => {
    const bounce = (email: string) => ({
      RecordType: 'Bounce',
      ID: Math.floor(Math.random() * 1e12),
      Type: 'HardBounce',
      MessageID: randomUUID(),
      Email: email,
    });
    const post = (body: object, user = postmark.user, password = postmark.password) =>
      request(api.server).post('/webhooks/postmark').auth(user, password).send(body);

    it('refuses a wrong password, and no credentials at all', async () => {
      const before = await state();
      await post(bounce(people[4].email), postmark.user, 'wrong').expect(401);
      await request(api.server)
        .post('/webhooks/postmark')
        .send(bounce(people[4].email))
        .expect(401);
      expect(await state()).toEqual(before);
    });

    it('matches a bounce by its recipient among the last days’ messages', async () => {
      const response = await post(bounce(people[4].email.toUpperCase())).expect(200);
      expect(response.body).toEqual({ received: 1, applied: 1 });
      expect(await statusOf(people[4].email)).toBe('bounced');
    });

    it('answers 200 and changes nothing for a recipient Herald never mailed', async () => {
      const before = await state();
      const response = await post(bounce('stranger@nowhere.test')).expect(200);
      expect(response.body).toEqual({ received: 1, applied: 0 });
      expect(await state()).toEqual(before);
    });
  });

  it('answers 404 for providers whose credential is unset', async () => {
    const { providerWebhooks } = env.config.deliverability;
    const bare = await createHttpApp(
      {
        ...env.config,
        deliverability: {
          ...env.config.deliverability,
          providerWebhooks: {
            ...providerWebhooks,
            snsTopicArns: undefined,
            postmark: undefined,
            sendgridPublicKey: undefined,
            mailgunSigningKey: undefined,
          },
        },
      },
      { workers: false },
    );
    try {
      for (const provider of ['ses', 'postmark', 'sendgrid', 'mailgun']) {
        const response = await request(bare.getHttpServer())
          .post(`/webhooks/${provider}`)
          .auth(postmark.user, postmark.password)
          .send({})
          .expect(404);
        expect(response.body.error.code).toBe('not_found');
      }
    } finally {
      await bare.close();
    }
  });
});
