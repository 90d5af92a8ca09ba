import { Global, INestApplicationContext, Injectable, Logger, Module } from '@nestjs/common';
import { setTimeout as pause } from 'node:timers/promises';
import { ShutdownConfig } from './config/config';
import { closeQueueWorkers } from './queue/queue-processor';

/**
 * Whether this process has been told to stop. Readiness answers 503 from that moment, before
 * anything closes, so a load balancer or an orchestrator stops sending work here first.
 */
@Injectable()
export class ShutdownState {
  private since: number | undefined;

  get stopping(): boolean {
    return this.since !== undefined;
  }

  begin(): void {
    this.since ??= Date.now();
  }
}

@Global()
@Module({ providers: [ShutdownState], exports: [ShutdownState] })
export class LifecycleModule {}

export interface CloseOptions {
  /** SHUTDOWN_GRACE_SECONDS and SHUTDOWN_DRAIN_SECONDS. */
  shutdown: ShutdownConfig;
  /** Closes what the app does not own (npm start's worker child), from the signal on. */
  alongside?: () => Promise<void>;
  /**
   * Stops taking connections and waits for the requests in flight, after the drain and before
   * the app closes (Nest closes its HTTP server only after the destroy hooks have ended the
   * stores those requests use).
   */
  closeListener?: () => Promise<void>;
}

/**
 * SIGTERM/SIGINT close the process gracefully, in order: readiness turns 503 at once; an API
 * keeps serving for SHUTDOWN_DRAIN_SECONDS (so whoever routes to it notices); then the HTTP
 * listener stops taking connections and lets the requests in flight finish while the queue
 * workers take no new job and end the ones they hold (a campaign batch stops claiming and is
 * handed back to the queue once its messages in flight are recorded); only then does the app
 * close, and with it the connections to the stores.
 *
 * It never hangs: a worker's graceful close waits on Redis while Redis is down, and a job may
 * outlast any grace. At-least-once queues plus the send ledger make an abrupt exit safe (the
 * job's lock lapses, another worker takes it, and the ledger keeps a message from going
 * twice), so when SHUTDOWN_GRACE_SECONDS have passed since the signal the process exits
 * regardless, before the supervisor's SIGKILL.
 *
 * A process started by another with an IPC channel (`npm start`'s workers) closes the same way
 * when that channel goes: its parent has ended, however abruptly, and nothing else stops it.
 */
export function closeOnSignals(app: INestApplicationContext, options: CloseOptions): void {
  const logger = new Logger('Shutdown');
  const { graceSeconds, drainSeconds } = options.shutdown;
  const state = app.get(ShutdownState, { strict: false });
  let closing = false;
  const shutdown = (reason: string) => {
    if (closing) return;
    closing = true;
    state.begin();
    logger.log(`${reason}: closing within ${graceSeconds} s`);
    setTimeout(() => {
      logger.error(`still closing after ${graceSeconds} s: exiting anyway`);
      process.exit(1);
    }, graceSeconds * 1000).unref();
    const alongside = (options.alongside ?? (() => Promise.resolve()))();
    const closed = (async () => {
      if (drainSeconds > 0) await pause(drainSeconds * 1000);
      await Promise.all([options.closeListener?.(), closeQueueWorkers()]);
      await app.close();
    })();
    Promise.all([closed, alongside]).then(
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
