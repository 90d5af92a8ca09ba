import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ReadinessProbe } from './health/readiness';
import { WorkerProbes } from './health/worker-probes';
import { WorkerModule } from './worker.module';
import { loadConfig } from './platform/config/config';
import { useEmbeddedDatabase } from './platform/database/embedded/use-embedded-database';
import { lowerCpuPriority } from './platform/cpu-priority';
import { closeOnSignals } from './platform/lifecycle';
import { createLogger, PinoNestLogger } from './platform/logging/logger';
import { answerMetricsRequests } from './platform/metrics/metrics-ipc';
import { HeraldMetrics } from './platform/metrics/herald-metrics';
import { TAKING_JOBS } from './platform/queue/worker-warm-ups';

/**
 * `npm run start:worker`: the send workers without HTTP. Run as many as you like. With
 * METRICS_PORT, its probes and metrics listen there; as `npm start`'s child, its parent asks
 * it for its metrics over the IPC channel instead.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  useEmbeddedDatabase(config);
  const logger = createLogger(config.logLevel);
  lowerCpuPriority(config.workerNice ?? 0, logger);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: new PinoNestLogger(logger),
  });
  const metrics = app.get(HeraldMetrics);
  const forked = process.send !== undefined;
  if (forked) answerMetricsRequests(metrics);
  if (!forked && config.metrics.workerPort !== undefined) {
    // Left open while the workers close, so readiness reads 503 until the process is gone.
    await WorkerProbes.listen(
      config.metrics.workerPort,
      config.metrics,
      app.get(ReadinessProbe),
      metrics,
    );
  }
  closeOnSignals(app, { shutdown: config.shutdown });
  // Nest's start-up has ended: the warm-ups are done and every queue worker runs.
  logger.info({ roles: config.workerRoles }, TAKING_JOBS);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
