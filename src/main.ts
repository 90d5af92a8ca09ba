import 'reflect-metadata';
import { EmbeddedWorkers } from './embedded-workers';
import { createHttpApp } from './http-app';
import { loadConfig } from './platform/config/config';
import { closeOnSignals } from './platform/lifecycle';

/**
 * `npm start`: the API, and the send workers in a child process (see EmbeddedWorkers), unless
 * started with --api-only (`npm run start:api`). Workers alone run from worker.ts.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createHttpApp(config, { workers: false });
  const workers = process.argv.includes('--api-only') ? undefined : new EmbeddedWorkers();
  closeOnSignals(app, () => workers?.stop() ?? Promise.resolve());
  await app.listen({ port: config.port, host: '0.0.0.0' });
  workers?.start();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
