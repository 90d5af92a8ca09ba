import { setPriority } from 'node:os';
import type { Logger } from 'pino';

/**
 * The nice level of the worker child that `npm start` runs beside its API: it shares the
 * host with the API by construction, and a campaign keeping every core busy should not make
 * API requests (transactional sends among them) wait for the CPU.
 */
export const ALL_IN_ONE_WORKER_NICE = 10;

/**
 * Lowers this process's CPU priority by `nice` (0: leaves it). A worker's campaign work is
 * batch work: where it shares cores with API processes, the kernel then runs the API's
 * requests first and gives the worker every cycle they leave, which on a host of its own is
 * all of them. On Linux this is the priority of the thread that runs the JavaScript and of
 * what it starts later (threads and children). Called after the embedded PostgreSQL is joined
 * (started synchronously), so the database server never inherits the lower priority.
 */
export function lowerCpuPriority(nice: number, logger: Pick<Logger, 'warn'>): void {
  if (nice === 0) return;
  try {
    setPriority(nice);
  } catch (error) {
    // Some sandboxes refuse even a lower priority: the worker then runs as it would have.
    logger.warn(`could not lower the worker's CPU priority to nice ${nice}: ${String(error)}`);
  }
}
