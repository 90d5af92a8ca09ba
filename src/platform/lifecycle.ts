import { INestApplicationContext, Logger } from '@nestjs/common';

/**
 * How long a signalled process may spend closing before it exits anyway: under the 10 s that
 * Docker (and many supervisors) wait before they SIGKILL.
 */
export const GRACE_MS = 8_000;

/**
 * SIGTERM/SIGINT close the app (workers finish their current jobs, connections drain), but
 * never hang: a worker's graceful close waits on Redis forever while Redis is down, and an
 * orchestrator would then have to SIGKILL us. At-least-once queues plus the send ledger make
 * an abrupt exit safe, so after the grace period the process exits regardless.
 *
 * A process started by another with an IPC channel (`npm start`'s workers) closes the same way
 * when that channel goes: its parent has ended, however abruptly, and nothing else stops it.
 * `alongside` closes what the app does not own (a child process) at the same time.
 */
export function closeOnSignals(
  app: INestApplicationContext,
  alongside: () => Promise<void> = () => Promise.resolve(),
): void {
  const logger = new Logger('Shutdown');
  let closing = false;
  const shutdown = (reason: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${reason}: closing`);
    setTimeout(() => {
      logger.error(`still closing after ${GRACE_MS} ms: exiting anyway`);
      process.exit(1);
    }, GRACE_MS).unref();
    Promise.all([app.close(), alongside()]).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`close failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM received'));
  process.once('SIGINT', () => shutdown('SIGINT received'));
  // A process with an IPC channel whose parent went while it was still starting closes now.
  if (process.send !== undefined) {
    if (process.connected) process.once('disconnect', () => shutdown('parent process gone'));
    else shutdown('parent process gone');
  }
}
