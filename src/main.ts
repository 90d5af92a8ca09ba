import 'reflect-metadata';
import { createHttpApp } from './http-app';
import { loadConfig } from './platform/config/config';
import { closeOnSignals } from './platform/lifecycle';

/**
 * `npm start`: the API, with the send workers embedded unless started with --api-only
 * (`npm run start:api`). Workers alone run from worker.ts.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createHttpApp(config, { workers: !process.argv.includes('--api-only') });
  closeOnSignals(app);
  await app.listen({ port: config.port, host: '0.0.0.0' });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
