import { getQueueToken } from '@nestjs/bullmq';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Queue } from 'bullmq';
import request from 'supertest';
import { parseWorkerRoles } from '../../src/platform/config/worker-roles';
import { QUEUES } from '../../src/platform/queue/queue.module';
import { WorkerModule } from '../../src/worker.module';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

describe('WORKER_ROLES: workers that take only some kinds of work', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  const workers: INestApplicationContext[] = [];

  /** A worker process's root, as `npm run start:worker` builds it with WORKER_ROLES=`roles`. */
  const startWorker = async (roles: string) => {
    const config = { ...env.config, workerRoles: parseWorkerRoles(roles) };
    const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
      logger: false,
    });
    workers.push(worker);
    return worker;
  };
  /** How many BullMQ workers take jobs from each queue now. */
  const takers = async () => {
    const count = async (name: string) =>
      (await api.app.get<Queue>(getQueueToken(name)).getWorkers()).length;
    return {
      transactional: await count(QUEUES.transactional),
      delivery: await count(QUEUES.campaignDelivery),
    };
  };

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    api = await TestApi.start(env, { workers: false });
  });
  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  it('leaves transactional mail to a worker of its own, which sends it', async () => {
    const { auth } = await api.tenant();
    await startWorker('-transactional');
    expect(await takers()).toEqual({ transactional: 0, delivery: 1 });

    const accepted = await request(api.server)
      .post('/v1/transactional/send')
      .set('Authorization', auth)
      .send({ to: 'ada@example.com', from: 'hello@acme.test', subject: 'Hi', text: 'Hello' })
      .expect(202);
    await startWorker('transactional');
    expect(await takers()).toEqual({ transactional: 1, delivery: 1 });
    await waitFor(() => sink.messages.some((m) => m.to.includes('ada@example.com')), {
      message: 'the transactional worker did not send the message',
    });
    const sent = await request(api.server)
      .get(`/v1/transactional/${accepted.body.id}`)
      .set('Authorization', auth);
    expect(sent.body.status).toBe('sent');
  });
});
