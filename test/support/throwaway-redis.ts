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

  private answers(): Promise<boolean> {
    return redisAnswers(this.port);
  }
}

/** Whether a Redis server (or a sentinel) on this loopback port answers PING. */
export async function redisAnswers(port: number): Promise<boolean> {
  const client = new Redis(port, '127.0.0.1', {
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

/** A redis-server on loopback with nothing persisted: `args` add to (or override) the defaults. */
export function spawnRedisServer(port: number, dir: string, args: string[] = []): ChildProcess {
  return spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--logfile',
      '',
      ...args,
    ],
    { stdio: 'ignore' },
  );
}

/** SIGKILL, and waits until it has gone. */
export async function killServer(server: ChildProcess | undefined): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  server.kill('SIGKILL');
  await exited;
}
