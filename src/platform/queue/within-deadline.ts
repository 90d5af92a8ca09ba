/** A queue write that did not finish in time: Redis is most likely unreachable. */
export class QueueDeadlineError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not reach Redis within ${ms} ms`);
    this.name = 'QueueDeadlineError';
  }
}

/**
 * Waits for `work` at most `ms`. BullMQ holds a command until Redis comes back, however long
 * that is; callers whose work is already durable elsewhere use this to answer in bounded time.
 * The write itself is not cancelled: it may still land later, so it must be idempotent (jobs
 * with fixed ids are).
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueueDeadlineError(what, ms)), ms);
  });
  // A failure after the deadline has already been answered for: keep it from going unhandled.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
