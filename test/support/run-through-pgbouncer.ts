import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ThrowawayPgBouncer } from './throwaway-pgbouncer';

/**
 * `npm run test:pgbouncer -- <jest arguments>`: Jest with every test env's app pool going
 * through a throwaway PgBouncer in transaction mode (TEST_PGBOUNCER_URL, see test-env.ts), to
 * show the suite holds behind one (CONTRACT §14). `npm run build` first for the e2e files.
 */
async function main(): Promise<number> {
  const bouncer = await ThrowawayPgBouncer.start();
  try {
    const jest = spawn('npx', ['jest', ...process.argv.slice(2)], {
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
