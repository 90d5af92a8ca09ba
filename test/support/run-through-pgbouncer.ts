import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ThrowawayPgBouncer } from './throwaway-pgbouncer';

/**
 * The e2e suite's main files, each a tour of its domain through the API and the workers:
 * subscribers, campaigns (definition and send), transactional, imports and exports, webhooks.
 */
const MAIN_E2E_FILES = [
  'test/e2e/subscribers.e2e-spec.ts',
  'test/e2e/campaigns.e2e-spec.ts',
  'test/e2e/campaign-send.e2e-spec.ts',
  'test/e2e/transactional.e2e-spec.ts',
  'test/e2e/bulk-data.e2e-spec.ts',
  'test/e2e/webhooks.e2e-spec.ts',
];

/**
 * `npm run test:pgbouncer [-- <jest arguments>]`: Jest with every test env's app pool going
 * through a throwaway PgBouncer in transaction mode (TEST_PGBOUNCER_URL, see test-env.ts), to
 * show the suite holds behind one. Without arguments, the main e2e files (`npm
 * test` runs them so, after the whole suite); with them, what they select (`-- test/e2e` for
 * every e2e file). `npm run build` first for the e2e files.
 */
async function main(): Promise<number> {
  const bouncer = await ThrowawayPgBouncer.start();
  try {
    const args = process.argv.slice(2);
    const jest = spawn('npx', ['jest', ...(args.length > 0 ? args : MAIN_E2E_FILES)], {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_PGBOUNCER_URL: `postgresql://postgres@127.0.0.1:${bouncer.port}`,
      },
    });
    const [code] = (await once(jest, 'exit')) as [number | null];
    return code ?? 1;
  } finally {
    await bouncer.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
