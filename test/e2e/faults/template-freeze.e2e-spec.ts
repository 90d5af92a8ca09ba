import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { ROOT } from '../../support/processes';
import { waitFor } from '../../support/wait-for';
import { faultLasting } from './campaign-fault';

interface Counts {
  ok: number;
  failed: number;
  errors: string[];
}

/**
 * A process frozen (SIGSTOP) while a template worker thread renders for it: the render's time
 * limit must count only the time the process ran, or a good template fails on thaw (a
 * campaign recipient was failed for good that way when a worker was frozen mid-send).
 */
describe('template rendering in a process that is frozen and thawed', () => {
  let child: ChildProcess;

  beforeAll(() => {
    child = fork(join(ROOT, 'test/support/template-pool-child.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', '@swc-node/register'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
  });
  afterAll(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  });

  async function counts(): Promise<Counts> {
    const answer = once(child, 'message') as Promise<[Counts]>;
    child.send('counts?');
    return (await answer)[0];
  }

  /** Waits until the child has finished a few more tasks: it is rendering right now. */
  async function busy(): Promise<void> {
    const before = (await counts()).ok;
    await waitFor(async () => (await counts()).ok >= before + 5, { timeoutMs: 30_000 });
  }

  it('fails no render across three freezes longer than the 1 s limit', async () => {
    for (let freeze = 0; freeze < 3; freeze++) {
      await busy();
      child.kill('SIGSTOP');
      await faultLasting(1_500);
      child.kill('SIGCONT');
    }
    await busy();
    const after = await counts();
    expect(after.errors).toEqual([]);
    expect(after.failed).toBe(0);
  }, 60_000);
});
