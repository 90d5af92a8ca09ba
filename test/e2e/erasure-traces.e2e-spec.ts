import { ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import request from 'supertest';
import { processEnv, ROOT, stop } from '../support/processes';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { hashTaggedPrefix } from '../../src/platform/redis/redis-clients';

const VICTIM = 'victim.erased@example.com';

/**
 * A send the relay keeps refusing for now, deferred and retried, then erased: the address must
 * be in no Redis key (the waiting job), not in the message's stored reason and in no log line
 * of the worker.
 */
describe('erasure leaves no trace in Redis or logs after a failed send', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let worker: ChildProcess;
  const workerOutput: string[] = [];
  let attempts = 0;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    // The relay quotes the address in its refusal, as real ones do.
    sink.verdict = (message) => {
      if (message.to.includes(VICTIM)) attempts++;
      return { code: 451, message: `4.2.0 <${VICTIM}>: mailbox of ${VICTIM} busy` };
    };
    env = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    api = await TestApi.start(env, { workers: false });
    worker = spawn('node', ['dist/worker.js'], {
      cwd: ROOT,
      env: processEnv(env, {
        SMTP_URL: sink.url,
        ALLOW_UNVERIFIED_FROM: '1',
        LOG_LEVEL: 'debug',
        // Deferred sends come back after a second, so the test sees several refusals.
        SMTP_RETRY_FIRST_SECONDS: '1',
        SMTP_RETRY_MAX_SECONDS: '1',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout!.on('data', (chunk: Buffer) => workerOutput.push(chunk.toString()));
    worker.stderr!.on('data', (chunk: Buffer) => workerOutput.push(chunk.toString()));
  });
  afterAll(async () => {
    await stop(worker);
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  /** Every value under this test's Redis prefix, as text. */
  async function redisContents(): Promise<string[]> {
    const redis = new Redis(env.redisServer);
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(
          cursor,
          'MATCH',
          `${hashTaggedPrefix(env.config.queuePrefix)}*`,
        );
        keys.push(...batch);
        cursor = next;
      } while (cursor !== '0');
      const values: string[] = [];
      for (const key of keys) {
        const type = await redis.type(key);
        if (type === 'string') values.push(key, (await redis.get(key)) ?? '');
        else if (type === 'hash') values.push(key, JSON.stringify(await redis.hgetall(key)));
        else if (type === 'list') values.push(key, ...(await redis.lrange(key, 0, -1)));
        else if (type === 'set') values.push(key, ...(await redis.smembers(key)));
        else if (type === 'zset') values.push(key, ...(await redis.zrange(key, '0', '-1')));
        else if (type === 'stream')
          values.push(key, JSON.stringify(await redis.xrange(key, '-', '+')));
      }
      return values;
    } finally {
      redis.disconnect();
    }
  }

  it('keeps the deferred job and its reason without the address, before and after the erasure', async () => {
    const { auth } = await api.tenant();
    const sent = await request(api.server)
      .post('/v1/transactional/send')
      .set('Authorization', auth)
      .send({ to: VICTIM, from: 'Acme <hello@acme.test>', subject: 'Receipt', text: 'Thanks' })
      .expect(202);
    const messageId: string = sent.body.id;
    // Two refusals: the message was deferred once and its job waits for the next try.
    await waitFor(() => attempts >= 2, { timeoutMs: 30_000, message: 'no second attempt' });
    const reason = async () =>
      (await request(api.server).get(`/v1/transactional/${messageId}`).set('Authorization', auth))
        .body.error as string | null;
    // The check can fail: the refusal is stored, with the address scrubbed out of it.
    await waitFor(async () => (await reason()) !== null, { message: 'no reason stored' });
    expect(await reason()).toContain('[address]');
    expect(await reason()).not.toContain(VICTIM);
    const during = (await redisContents()).join('\n');
    expect(during).toContain(messageId);
    expect(during).not.toContain(VICTIM);

    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', auth)
      .send({ email: VICTIM })
      .expect(200);
    const after = (await redisContents()).join('\n');
    expect(after).not.toContain(VICTIM);
    expect(after).not.toContain('victim.erased');
    // The worker logged its deferrals (warnings), never the address.
    expect(workerOutput.join('')).toContain('relay refused for now: deferred');
    expect(workerOutput.join('')).not.toContain(VICTIM);
  });
});
