import { removeLeftovers } from './test-env-registry';

/**
 * Jest's global teardown: removes what a test file left on the shared servers and names the
 * file, so a clean-up that failed is seen and fixed rather than found later as a stray database.
 */
export default async function globalTeardown(): Promise<void> {
  const reports = await removeLeftovers();
  for (const report of reports) process.stderr.write(`[test clean-up] ${report}\n`);
}
