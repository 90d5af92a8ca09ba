import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from './processes';
import { waitFor } from './wait-for';

/**
 * A Redis server of a test's own, to crash at will (the shared one on 6379 must stay up for
 * everyone else): redis-server on a free loopback port, nothing persisted, so a crash and
 * restart comes back empty, as a Redis without persistence (or whose disk was lost) does.
 */
export class ThrowawayRedis {
  private server: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** SIGKILL: connections drop at once and every key is gone. */
  async crash(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
  }

  /** Starts it (again, empty) on the same port and waits until it answers. */
  async restart(): Promise<void> {
    await this.crash();
    this.server = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        '/tmp',
        '--logfile',
        '',
      ],
      { stdio: 'ignore' },
    );
    await waitFor(() => this.answers(), { timeoutMs: 15_000, intervalMs: 50 });
  }

  async dispose(): Promise<void> {
    await this.crash();
  }

  private async answers(): Promise<boolean> {
    const client = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  }
}
