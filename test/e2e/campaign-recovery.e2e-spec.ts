import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { Prisma } from '../../src/generated/prisma/client';
import { AppModule } from '../../src/app.module';
import { CampaignAudienceSnapshot } from '../../src/campaigns/delivery/campaign-audience-snapshot';
import { CampaignWatchdog } from '../../src/campaigns/delivery/campaign-watchdog';
import { SubscribersService } from '../../src/subscribers/subscribers.service';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';

/**
 * The pieces that make a send survive trouble, driven step by step: the API runs without
 * workers, the test plays the part of a fan-out that died, and a worker context is started
 * only when the test wants the pipeline to move.
 */
describe('campaign send recovery', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let fanout: CampaignAudienceSnapshot;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      RATE_LIMIT_SEND: '1000',
      ALLOW_UNVERIFIED_FROM: '1',
    });
    api = await TestApi.start(env, { workers: false });
    fanout = api.app.get(CampaignAudienceSnapshot);
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const startWorker = async () => {
    worker = await NestFactory.createApplicationContext(AppModule.worker(env.config), {
      logger: false,
    });
    return worker;
  };

  async function draft(auth: string, text = 'Hello {{first_name}}'): Promise<string> {
    const created = await request(api.server)
      .post('/v1/campaigns')
      .set('Authorization', auth)
      .send({ name: 'Recovery', subject: 'Hi', from: 'news@acme.test', text })
      .expect(201);
    return created.body.id as string;
  }

  async function send(auth: string, id: string): Promise<void> {
    await request(api.server)
      .post(`/v1/campaigns/${id}/send`)
      .set('Authorization', auth)
      .expect(202);
  }

  const receivedAt = (domain: string) =>
    sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`)).map((m) => m.to[0]);

  it('reads subscribers on the raw hot path exactly as the Prisma model does', async () => {
    const tenant = await api.tenant('Mapping');
    const people = await api.make.subscribers(tenant.accountId, 3, { domain: 'mapping.test' });
    await env.sql(
      `UPDATE subscribers SET birthdate = now(), stat_revenue_cents = 1234, tags = '{a,b}',
              social_media = '[{"platform":"x","profile_id":"y"}]', last_sent_at = now()
        WHERE account_id = $1`,
      [tenant.accountId],
    );
    const viaPrisma = await api.prisma.subscriber.findMany({
      where: { accountId: tenant.accountId },
      orderBy: { id: 'asc' },
    });
    const viaRaw = await api.app.get(SubscribersService).findRows(
      tenant.accountId,
      people.map((p) => p.id),
    );
    viaRaw.sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(viaRaw.map((row) => ({ ...row }))).toEqual(viaPrisma.map((row) => ({ ...row })));
  });

  it('resumes a fan-out from its checkpoint: nobody twice, nobody missed', async () => {
    const domain = 'resume.test';
    const tenant = await api.tenant('Resume');
    const people = await api.make.subscribers(tenant.accountId, 95, { domain });
    const id = await draft(tenant.auth);
    await send(tenant.auth, id);
    // A fan-out that committed three batches of 20 and died before enqueuing anything.
    for (let i = 0; i < 3; i++) {
      const result = await fanout.snapshotBatch(tenant.accountId, id, Prisma.sql`TRUE`, 20, 10);
      expect(result).toEqual({ batches: [i * 2, i * 2 + 1], done: false });
    }
    const [checkpoint] = await env.sql<{ fanout_batches: number; recipient_count: number }>(
      `SELECT fanout_batches, recipient_count FROM campaigns WHERE id = $1`,
      [id],
    );
    expect(checkpoint).toEqual({ fanout_batches: 6, recipient_count: 60 });

    await startWorker();
    const stats = await waitUntilSent(api.server, tenant.auth, id);
    const received = receivedAt(domain);
    expect(received.sort()).toEqual(people.map((p) => p.email).sort());
    expect(stats).toMatchObject({ recipients: 95, delivered: 95, outstanding: 0 });
    const batches = await env.sql<{ batch: number; count: string }>(
      `SELECT batch, count(*) FROM campaign_recipients WHERE campaign_id = $1 GROUP BY batch ORDER BY batch`,
      [id],
    );
    expect(batches.slice(0, 6).map((b) => Number(b.count))).toEqual([10, 10, 10, 10, 10, 10]);
    expect(batches.reduce((sum, b) => sum + Number(b.count), 0)).toBe(95);
  });

  it('skips a recipient erased after the snapshot, silently, and keeps no address for them', async () => {
    const domain = 'erased-late.test';
    const tenant = await api.tenant('Late erasure');
    const people = await api.make.subscribers(tenant.accountId, 12, { domain });
    const id = await draft(tenant.auth);
    await send(tenant.auth, id);
    await fanout.snapshotBatch(tenant.accountId, id, Prisma.sql`TRUE`, 1000, 250);
    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', tenant.auth)
      .send({ email: people[5].email })
      .expect(200);
    const [row] = await env.sql<{ status: string; skip_reason: string }>(
      `SELECT status, skip_reason FROM campaign_recipients WHERE subscriber_id = $1`,
      [people[5].id],
    );
    expect(row).toEqual({ status: 'skipped', skip_reason: 'erased' });

    await startWorker();
    const stats = await waitUntilSent(api.server, tenant.auth, id);
    expect(receivedAt(domain)).not.toContain(people[5].email);
    expect(receivedAt(domain)).toHaveLength(11);
    expect(stats).toMatchObject({ recipients: 11, delivered: 11, skipped_erased: 1 });
    const leftovers = await env.sql(`SELECT * FROM campaign_recipients WHERE subscriber_id = $1`, [
      people[5].id,
    ]);
    expect(JSON.stringify(leftovers)).not.toContain(people[5].email);
  });

  it('counts subscribers erased before the send of an unsegmented campaign as skipped_erased', async () => {
    const domain = 'erased-early.test';
    const tenant = await api.tenant('Early erasure');
    const people = await api.make.subscribers(tenant.accountId, 8, { domain });
    const id = await draft(tenant.auth);
    for (const person of [people[0], people[7]]) {
      await request(api.server)
        .post('/v1/erasures')
        .set('Authorization', tenant.auth)
        .send({ email: person.email })
        .expect(200);
    }
    await send(tenant.auth, id);
    await startWorker();
    const stats = await waitUntilSent(api.server, tenant.auth, id);
    expect(stats).toMatchObject({ recipients: 6, delivered: 6, skipped_erased: 2 });
    expect(receivedAt(domain)).toHaveLength(6);
  });

  it('revives a sending campaign whose jobs Redis lost (the watchdog)', async () => {
    const domain = 'lost-jobs.test';
    const tenant = await api.tenant('Lost jobs');
    await api.make.subscribers(tenant.accountId, 30, { domain });
    const id = await draft(tenant.auth);
    await send(tenant.auth, id);
    await fanout.snapshotBatch(tenant.accountId, id, Prisma.sql`TRUE`, 1000, 10);
    // Redis forgot every job of this env (e.g. restarted without persistence).
    const { Redis } = await import('ioredis');
    const redis = new Redis(env.redisServer);
    const keys = await redis.keys(`${hashTaggedPrefix(env.config.queuePrefix)}:campaign-*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await env.sql(
      `UPDATE campaigns SET progress_at = now() - interval '10 minutes' WHERE id = $1`,
      [id],
    );

    const context = await startWorker();
    await context.get(CampaignWatchdog).tick();
    const stats = await waitUntilSent(api.server, tenant.auth, id);
    expect(stats).toMatchObject({ recipients: 30, delivered: 30, outstanding: 0 });
    expect(receivedAt(domain)).toHaveLength(30);
  });
});
