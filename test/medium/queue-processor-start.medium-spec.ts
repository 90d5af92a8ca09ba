import { BullModule, Processor } from '@nestjs/bullmq';
import { INestApplicationContext, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigModule } from '../../src/platform/config/config.module';
import { QueueProcessor, workerOptions } from '../../src/platform/queue/queue-processor';
import { QueueModule } from '../../src/platform/queue/queue.module';
import { holdQueueWorkersFor } from '../../src/platform/queue/worker-warm-ups';
import { WARM_UP_HOLD_MAX_MS } from '../../src/platform/settings';
import { TestEnv } from '../support/test-env';

const QUEUE = 'warm-start-probe';

@Processor(QUEUE, workerOptions(1))
class StartProbe extends QueueProcessor {
  constructor() {
    super('the start probe');
  }

  process(): Promise<void> {
    return Promise.resolve();
  }
}

/** A warm-up that ends when the test says, and says when it has been registered. */
@Injectable()
class HeldWarmUp implements OnModuleInit {
  static release: () => void;
  static registered: Promise<void>;
  static probe: StartProbe;
  private static registeredNow: () => void;

  constructor(probe: StartProbe) {
    HeldWarmUp.probe = probe;
  }

  static reset(): void {
    HeldWarmUp.registered = new Promise((resolve) => (HeldWarmUp.registeredNow = resolve));
  }

  onModuleInit(): void {
    holdQueueWorkersFor(
      'the test',
      () => new Promise<void>((resolve) => (HeldWarmUp.release = resolve)),
    );
    HeldWarmUp.registeredNow();
  }
}

@Module({})
class ProbeModule {}

describe('a queue worker starts once the warm-ups have ended, or have held it long enough', () => {
  let env: TestEnv;
  let app: INestApplicationContext | undefined;

  beforeAll(async () => {
    env = await TestEnv.create({}, { migrate: false });
  });
  afterAll(async () => {
    await app?.close();
    await env?.dispose();
  });

  const startApp = () =>
    NestFactory.createApplicationContext(
      {
        module: ProbeModule,
        imports: [
          ConfigModule.forRoot(env.config),
          QueueModule,
          BullModule.registerQueue({ name: QUEUE }),
        ],
        providers: [StartProbe, HeldWarmUp],
      },
      { logger: false },
    );

  it('takes no job while a warm-up runs, and takes jobs once it has ended', async () => {
    HeldWarmUp.reset();
    let started = false;
    const starting = startApp().then((context) => {
      started = true;
      return context;
    });
    await HeldWarmUp.registered;
    // The processor's worker exists (built at module init) and its connection is up, but it
    // does not run: start-up waits for the warm-up.
    const worker = await builtWorker(HeldWarmUp.probe);
    await worker.waitUntilReady();
    expect(worker.isRunning()).toBe(false);
    expect(started).toBe(false);

    HeldWarmUp.release();
    app = await starting;
    expect(app.get(StartProbe).worker.isRunning()).toBe(true);
    await app.close();
    app = undefined;
  });

  it('takes jobs anyway once a warm-up has held it for WARM_UP_HOLD_MAX_MS', async () => {
    HeldWarmUp.reset();
    const startedAt = Date.now();
    // The warm-up is never released.
    app = await startApp();
    expect(app.get(StartProbe).worker.isRunning()).toBe(true);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(WARM_UP_HOLD_MAX_MS);
  });
});

/** The processor's BullMQ worker, once @nestjs/bullmq has built it (at module init). */
async function builtWorker(probe: StartProbe): Promise<StartProbe['worker']> {
  for (;;) {
    try {
      return probe.worker;
    } catch {
      // Not built yet: the registrar's module init has not run.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
