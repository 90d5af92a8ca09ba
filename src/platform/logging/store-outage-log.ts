import { Logger } from '@nestjs/common';
import { STORE_DOWN_LOG_EVERY_MS } from '../settings';

/** The store behind the process's queues and shared state, as its outage lines name it. */
export type OutageStore = 'Redis' | 'PostgreSQL';

let store: OutageStore = 'Redis';
let lastReportAt = Number.NEGATIVE_INFINITY;
let unreported = 0;

/**
 * Called where the process chooses its queue store (one per process): on the PostgreSQL
 * store the queues' and workers' errors are PostgreSQL's, and an operator looking for why
 * the queues stopped should not be sent to a Redis the deployment does not have.
 */
export function nameOutageStore(name: OutageStore): void {
  store = name;
}

/**
 * Every client of the shared store (Redis: ours, BullMQ's queues and workers; PostgreSQL: the
 * queues' pool) reports its errors here. While the store is away each of them fails on every
 * reconnect attempt; one line per interval, without a stack trace, says what is going on,
 * instead of a trace per retry.
 */
export function reportStoreError(source: string, error: unknown, now = Date.now()): boolean {
  if (now - lastReportAt < STORE_DOWN_LOG_EVERY_MS) {
    unreported++;
    return false;
  }
  const more = unreported > 0 ? `; ${unreported} more ${store} errors since the last report` : '';
  new Logger(store).warn(`${store} error in ${source}: ${describe(error)}; retrying${more}`);
  lastReportAt = now;
  unreported = 0;
  return true;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code)
    ? `${code} ${error.message}`
    : error.message;
}
