import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { processAlive } from './process-alive';

/** How long to wait for another process to finish starting or stopping the server. */
const LOCK_WAIT_MS = 120_000;
const RETRY_MS = 25;

/**
 * A lock file holding the pid of the process that holds it, so the processes of one
 * installation start, join and stop its server one at a time. Synchronous on purpose: the
 * last process's release runs in its 'exit' handler, where nothing asynchronous finishes.
 * A lock left by a process that died is taken over.
 */
export function withDirectoryLock<T>(path: string, work: () => T): T {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readQuietly(path));
      if (holder && !processAlive(holder)) {
        unlinkQuietly(path);
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${path} is held by process ${holder}, which has not let go for 2 minutes`,
          {
            cause: error,
          },
        );
      }
      sleepSync(RETRY_MS);
    }
  }
  try {
    return work();
  } finally {
    unlinkQuietly(path);
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readQuietly(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
