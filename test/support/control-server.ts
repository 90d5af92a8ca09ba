import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** An idle HTTP server that answers every request with 200 at once. */
const SERVER = `
const server = require('node:http').createServer((request, response) => response.end('ok'));
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

/**
 * A bare Node.js HTTP server in its own process, asked at the same moment as the process under
 * test: on a busy machine both wait for a core alike, so what the process under test takes
 * beyond the control's time is its own doing (a blocked event loop), not the scheduler's.
 */
export class ControlServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly base: string,
  ) {}

  static async start(): Promise<ControlServer> {
    const child = spawn(process.execPath, ['-e', SERVER], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const [port] = (await once(child, 'message')) as [number];
    return new ControlServer(child, `http://127.0.0.1:${port}`);
  }

  /**
   * Fetches `url` and the control together; returns how long each took, in milliseconds.
   */
  async timeBeside(url: string): Promise<{ status: number; ms: number; controlMs: number }> {
    const timed = async (target: string) => {
      const started = performance.now();
      const response = await fetch(target, { signal: AbortSignal.timeout(30_000) });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    };
    const [measured, control] = await Promise.all([timed(url), timed(this.base)]);
    return { status: measured.status, ms: measured.ms, controlMs: control.ms };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill();
    await exited;
  }
}
