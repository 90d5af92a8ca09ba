import { request as httpRequest } from 'node:http';
import { FaultRig, Tenant } from '../../support/fault-rig';
import { HeraldProcess } from '../../support/herald-process';
import { alive, childrenOf, freePort, processEnv, waitForOk } from '../../support/processes';
import { waitFor } from '../../support/wait-for';
import { CASE_TIMEOUT_MS, expectWhole, runFaultCase } from './campaign-fault';

/** The grace the processes get; the test's own SIGKILL comes only well after it. */
const GRACE_SECONDS = 20;
const SIGKILL_AFTER_MS = (GRACE_SECONDS + 15) * 1000;

/**
 * SIGTERM, as a rolling deploy or an orchestrator sends it, to real processes of every type:
 * readiness turns 503 first, requests in flight are answered, workers take no
 * new job and hand back what they hold, and each process exits by itself, with status 0,
 * within SHUTDOWN_GRACE_SECONDS.
 */
describe('SIGTERM', () => {
  let rig: FaultRig;
  let tenant: Tenant;

  beforeAll(async () => {
    rig = await FaultRig.start({ env: { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) } });
    tenant = await rig.tenant('Stopping');
  }, 120_000);
  afterAll(async () => {
    await rig?.dispose();
  });

  it('an API: ready turns 503, the request in flight is answered, then it exits', async () => {
    const port = await freePort();
    const api = HeraldProcess.start(
      'api',
      'draining-api',
      processEnv(rig.env, {
        PORT: String(port),
        SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
        SHUTDOWN_DRAIN_SECONDS: '3',
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health/ready`).catch((error: Error) => {
      throw new Error(`${error.message}\n${api.tail()}`);
    });

    // A request whose body is still on its way when the signal comes.
    const body = JSON.stringify({ email: 'late@stopping.test', first_name: 'Late' });
    const inFlight = postInTwoParts(`${base}/v1/subscribers`, tenant.auth, body);
    await inFlight.firstPartSent;
    const signalled = Date.now();
    const stopped = api.stop(SIGKILL_AFTER_MS);

    const ready = await waitFor(
      async () => {
        const response = await fetch(`${base}/health/ready`);
        return response.status === 503 ? response : undefined;
      },
      { message: () => api.tail() },
    );
    expect(await ready.json()).toEqual({ status: 'stopping', database: true, redis: true });
    expect((await fetch(`${base}/health/live`)).status).toBe(200);

    inFlight.finish();
    const answer = await inFlight.response;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ email: 'late@stopping.test' });

    await stopped;
    expect(api.ended).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(GRACE_SECONDS * 1000);
    // The listener is closed once the process has gone.
    await expect(fetch(`${base}/health/live`)).rejects.toThrow();
  }, 120_000);

  it(
    'a rolling restart of two workers mid-campaign: nothing lost, nothing twice',
    async () => {
      let firstStopped: Promise<void> | undefined;
      const stopped: HeraldProcess[] = [];
      const run = await runFaultCase({
        name: 'rolling restart of both workers (SIGTERM each in turn), at 25 %',
        at: 0.25,
        bound: 0,
        env: { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) },
        strike: ({ workers }) => {
          firstStopped = workers[0].stop(SIGKILL_AFTER_MS);
        },
        // Each in turn, the way a rolling deploy replaces them: the next one is stopped only
        // once the one before has gone and its replacement has started.
        recover: async ({ rig: instance, workers }) => {
          await firstStopped;
          stopped.push(workers[0]);
          instance.startWorker();
          await workers[1].stop(SIGKILL_AFTER_MS);
          stopped.push(workers[1]);
          instance.startWorker();
        },
      });
      expectWhole(run, 0);
      expect(stopped.map((worker) => worker.ended)).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
    },
    CASE_TIMEOUT_MS,
  );

  it('start:smtp: probes and metrics on METRICS_PORT, a clean exit on SIGTERM', async () => {
    const [smtpPort, metricsPort] = [await freePort(), await freePort()];
    const smtp = HeraldProcess.start(
      'smtp',
      'submission',
      processEnv(rig.env, {
        SUBMISSION_SMTP_PORT: String(smtpPort),
        SUBMISSION_SMTP_HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort),
        SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      }),
    );
    const base = `http://127.0.0.1:${metricsPort}`;
    await waitForOk(`${base}/health/ready`).catch((error: Error) => {
      throw new Error(`${error.message}\n${smtp.tail()}`);
    });
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('herald_db_pool_max');
    const signalled = Date.now();
    await smtp.stop(SIGKILL_AFTER_MS);
    expect(smtp.ended).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(GRACE_SECONDS * 1000);
  }, 120_000);

  it('npm start: the API and its worker child both close, within the grace', async () => {
    const { process: all } = await rig.startAllInOne();
    const child = await waitFor(() => childrenOf(all.pid)[0], {
      message: 'no worker process started',
    });
    const signalled = Date.now();
    await all.stop(SIGKILL_AFTER_MS);
    expect(all.ended).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(GRACE_SECONDS * 1000);
    expect(alive(child)).toBe(false);
  }, 120_000);
});

/**
 * A POST whose headers and first half of the body leave now, and whose second half leaves on
 * `finish()`: a request the server is in the middle of when it is signalled.
 */
function postInTwoParts(url: string, authorization: string, body: string) {
  const half = Math.floor(body.length / 2);
  let firstSent!: () => void;
  const firstPartSent = new Promise<void>((resolve) => (firstSent = resolve));
  const req = httpRequest(url, {
    method: 'POST',
    headers: {
      Authorization: authorization,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  req.write(body.slice(0, half), () => firstSent());
  return { firstPartSent, response, finish: () => req.end(body.slice(half)) };
}
