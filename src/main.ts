import 'reflect-metadata';
import type { Server } from 'node:http';
import { EmbeddedWorkers } from './embedded-workers';
import { createHttpApp } from './http-app';
import { loadConfig } from './platform/config/config';
import { useEmbeddedDatabase } from './platform/database/embedded/use-embedded-database';
import { closeOnSignals } from './platform/lifecycle';
import { HeraldMetrics } from './platform/metrics/herald-metrics';
import { SubmissionSmtpServer } from './submission/submission-smtp.server';

/**
 * `npm start`: the API, and the send workers in a child process (see EmbeddedWorkers), unless
 * started with --api-only (`npm run start:api`). Workers alone run from worker.ts.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  useEmbeddedDatabase(config);
  const app = await createHttpApp(config, { workers: false });
  const workers = process.argv.includes('--api-only')
    ? undefined
    : new EmbeddedWorkers(config.shutdown.graceSeconds * 1000, config.workerNice);
  // The workers' counters (messages, send latency) are theirs: /metrics adds them in.
  if (workers) app.get(HeraldMetrics).addSource(() => workers.metrics());
  closeOnSignals(app, {
    shutdown: config.shutdown,
    alongside: () => workers?.stop() ?? Promise.resolve(),
    closeListener: async () => {
      await Promise.all([
        closeListener(app.getHttpServer()),
        app.get(SubmissionSmtpServer, { strict: false }).onApplicationShutdown(),
      ]);
    },
  });
  await app.listen({ port: config.port, host: '0.0.0.0' });
  workers?.start();
}

/**
 * Stops accepting connections, closes the idle ones, and resolves once the requests in flight
 * have been answered and their connections closed (Nest's own close, later, finds it closed).
 */
function closeListener(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
