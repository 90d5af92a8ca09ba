import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ReadinessProbe } from './health/readiness';
import { WorkerProbes } from './health/worker-probes';
import { HeraldConfig, loadConfig } from './platform/config/config';
import { useEmbeddedDatabase } from './platform/database/embedded/use-embedded-database';
import { HeraldMetrics } from './platform/metrics/herald-metrics';
import { closeOnSignals } from './platform/lifecycle';
import { createLogger, PinoNestLogger } from './platform/logging/logger';
import { SubmissionSmtpServer } from './submission/submission-smtp.server';
import { SubmissionModule } from './submission/submission.module';
import { coreModules } from './worker.module';

@Module({})
class SubmissionRootModule {
  static forRoot(config: HeraldConfig) {
    return { module: SubmissionRootModule, imports: [...coreModules(config), SubmissionModule] };
  }
}

/**
 * `npm run start:smtp`: SMTP submission alone, without HTTP or workers (the API process runs
 * it too). SUBMISSION_SMTP_PORT must be set; the messages it takes are sent by the workers.
 * Like a worker, it serves its probes and metrics on METRICS_PORT when set.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.submission) throw new Error('SUBMISSION_SMTP_PORT must be set for start:smtp');
  useEmbeddedDatabase(config);
  const app = await NestFactory.createApplicationContext(SubmissionRootModule.forRoot(config), {
    logger: new PinoNestLogger(createLogger(config.logLevel)),
  });
  if (config.metrics.workerPort !== undefined) {
    await WorkerProbes.listen(
      config.metrics.workerPort,
      config.metrics,
      app.get(ReadinessProbe),
      app.get(HeraldMetrics),
    );
  }
  // Sessions in flight end (their messages stored) before the stores' clients close.
  const smtp = app.get(SubmissionSmtpServer);
  closeOnSignals(app, {
    shutdown: config.shutdown,
    closeListener: () => smtp.onApplicationShutdown(),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
