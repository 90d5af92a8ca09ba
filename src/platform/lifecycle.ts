import { INestApplicationContext, Logger } from '@nestjs/common';

/**
 * How long a signalled process may spend closing before it exits anyway: under the 10 s that
 * Docker (and many supervisors) wait before they SIGKILL.
 */
const GRACE_MS = 8_000;

/**
 * SIGTERM/SIGINT close the app (workers finish their current jobs, connections drain), but
 * never hang: a worker's graceful close waits on Redis forever while Redis is down, and an
 * orchestrator would then have to SIGKILL us. At-least-once queues plus the send ledger make
 * an abrupt exit safe, so after the grace period the process exits regardless.
 */
export function closeOnSignals(app: INestApplicationContext): void {
  const logger = new Logger('Shutdown');
  const shutdown = (signal: NodeJS.Signals) => {
    logger.log(`${signal} received: closing`);
    setTimeout(() => {
      logger.error(`still closing after ${GRACE_MS} ms: exiting anyway`);
      process.exit(1);
    }, GRACE_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`close failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
