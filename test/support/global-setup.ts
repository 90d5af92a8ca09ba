import { randomBytes } from 'node:crypto';
import { beginRun } from './test-env-registry';

/** Jest's global setup: names this run, so its TestEnvs can be checked at its end. */
export default function globalSetup(): void {
  beginRun(`${Date.now()}-${randomBytes(4).toString('hex')}`);
}
