import { Logger } from '@nestjs/common';
import { PeriodicTask } from './periodic-task';

/** A pass that ends when the test says so. */
function heldPass() {
  let release: () => void = () => undefined;
  let calls = 0;
  const pass = () => {
    calls++;
    return new Promise<void>((resolve) => (release = resolve));
  };
  return { pass, release: () => release(), calls: () => calls };
}

describe('PeriodicTask', () => {
  const logger = new Logger('test');

  it('never runs two passes at once: a second call joins the running one', async () => {
    const held = heldPass();
    const task = new PeriodicTask('test pass', 60_000, held.pass, logger);
    const first = task.runNow();
    const second = task.runNow();
    expect(second).toBe(first);
    expect(held.calls()).toBe(1);
    held.release();
    await first;
    void task.runNow();
    expect(held.calls()).toBe(2);
    held.release();
    await task.stop();
  });

  it('logs a failed pass and runs again on the next call', async () => {
    const errors: unknown[] = [];
    const quiet = { error: (message: unknown) => errors.push(message) } as unknown as Logger;
    let calls = 0;
    const task = new PeriodicTask(
      'test pass',
      60_000,
      () => (++calls === 1 ? Promise.reject(new Error('away')) : Promise.resolve()),
      quiet,
    );
    await expect(task.runNow()).resolves.toBeUndefined();
    expect(errors).toEqual(['test pass failed: Error: away']);
    await task.runNow();
    expect(calls).toBe(2);
  });

  it('stop waits for the pass that is running', async () => {
    const held = heldPass();
    const task = new PeriodicTask('test pass', 60_000, held.pass, logger);
    task.start();
    void task.runNow();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    held.release();
    await stopping;
    expect(stopped).toBe(true);
  });
});
