import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createHttpApp } from './http-app';
import { loadConfig } from './platform/config/config';

/**
 * `npm run openapi:write [file]`: writes the document the API serves at /openapi.json
 * (default `var/openapi.json`), for the linter and the client generator. It builds the HTTP
 * app without listening and without workers; no request reaches PostgreSQL.
 */
async function main(): Promise<void> {
  const target = resolve(process.argv[2] ?? 'var/openapi.json');
  const app = await createHttpApp(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), {
    workers: false,
  });
  try {
    const served = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (served.statusCode !== 200) throw new Error(`/openapi.json answered ${served.statusCode}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(JSON.parse(served.body), null, 2)}\n`);
    console.log(`Wrote ${target}`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
