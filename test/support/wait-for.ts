import { setTimeout as pause } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long (default 15 s): a condition that never holds fails the test. */
  timeoutMs?: number;
  /** How often the condition is checked (default 50 ms). */
  intervalMs?: number;
  /** Said when the time is up, e.g. what was last seen; a function is called only then. */
  message?: string | (() => string);
}

/** What a condition answers while it does not hold yet. */
type NotYet = undefined | null | false;

/**
 * The one way tests wait: checks `condition` until it answers something other than
 * undefined, null or false, and returns that answer. Checks start at once, so a condition
 * that already holds costs nothing. An error thrown by the condition fails at once (it is a
 * failed assertion, not "not yet"). Never a fixed pause: a test waits exactly as long as the
 * thing it waits for takes, and no longer than `timeoutMs`.
 */
export async function waitFor<T>(
  condition: () => T | NotYet | Promise<T | NotYet>,
  { timeoutMs = 15_000, intervalMs = 50, message }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await condition();
    if (answer !== undefined && answer !== null && answer !== false) return answer;
    if (Date.now() >= deadline) {
      const detail = typeof message === 'function' ? message() : message;
      throw new Error(`condition not met within ${timeoutMs} ms${detail ? `: ${detail}` : ''}`);
    }
    await pause(intervalMs);
  }
}

/**
 * A promise the test opens when it chooses: `opened` settles once `open` is called. For a
 * transaction a test holds open on purpose, or a step inside someone's work it waits to see.
 */
export function latch(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
