import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './processes';
import { killServer, redisAnswers, spawnRedisServer } from './throwaway-redis';
import { waitFor } from './wait-for';

const MASTER_NAME = 'herald';
const SENTINELS = 3;
/** How long the sentinels wait before calling a silent primary down (production: 5-30 s). */
const DOWN_AFTER_MS = 2_000;

/**
 * A Redis Sentinel group of a test's own, as production runs one: a primary, a replica
 * (`--replicaof`) and three sentinels (`redis-server --sentinel`, quorum two) watching them,
 * all on free loopback ports, nothing persisted. `url` is what REDIS_URL says to reach it.
 */
export class ThrowawaySentinelGroup {
  private readonly servers = new Map<number, ChildProcess>();
  private readonly sentinels: ChildProcess[] = [];

  private constructor(
    private readonly dir: string,
    private readonly serverPorts: number[],
    readonly sentinelPorts: number[],
  ) {}

  static async start(): Promise<ThrowawaySentinelGroup> {
    const dir = mkdtempSync(join(tmpdir(), 'herald-sentinel-'));
    const ports: number[] = [];
    while (ports.length < 2 + SENTINELS) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const group = new ThrowawaySentinelGroup(dir, ports.slice(0, 2), ports.slice(2));
    try {
      await group.boot();
    } catch (error) {
      await group.dispose();
      throw error;
    }
    return group;
  }

  get url(): string {
    const sentinels = this.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
    return `redis+sentinel://${sentinels}/${MASTER_NAME}`;
  }

  /** The port of the server the sentinels name as primary now (as the `asked`-th tells). */
  async primaryPort(asked = 0): Promise<number> {
    const sentinel = new Redis(this.sentinelPorts[asked], '127.0.0.1', { maxRetriesPerRequest: 1 });
    try {
      const [, port] = (await sentinel.call(
        'SENTINEL',
        'get-master-addr-by-name',
        MASTER_NAME,
      )) as [string, string];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  }

  /**
   * SIGKILL of the primary: its connections drop, and whatever the replica had not received
   * yet is gone. Its port.
   */
  async killPrimary(): Promise<number> {
    const old = await this.primaryPort();
    await killServer(this.servers.get(old));
    this.servers.delete(old);
    return old;
  }

  /** Resolves once the sentinels (the `asked`-th) name another primary than `old`: its port. */
  promotedAfter(old: number, asked = 0): Promise<number> {
    return waitFor(
      async () => {
        const now = await this.primaryPort(asked).catch(() => old);
        return now !== old ? now : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'the sentinels never promoted the replica' },
    );
  }

  /**
   * SIGSTOP of the `index`-th sentinel: it still accepts connections (the kernel does) but
   * answers nothing, as a sentinel on an overloaded machine, until thawSentinel.
   */
  freezeSentinel(index: number): void {
    this.sentinels[index].kill('SIGSTOP');
  }

  thawSentinel(index: number): void {
    this.sentinels[index].kill('SIGCONT');
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.servers.values(), ...this.sentinels].map(killServer));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async boot(): Promise<void> {
    const [primary, replica] = this.serverPorts;
    this.servers.set(primary, spawnRedisServer(primary, this.dir));
    await waitFor(() => redisAnswers(primary), { timeoutMs: 15_000, intervalMs: 50 });
    this.servers.set(
      replica,
      spawnRedisServer(replica, this.dir, ['--replicaof', '127.0.0.1', String(primary)]),
    );
    await waitFor(() => this.replicaInSync(replica), { timeoutMs: 30_000, intervalMs: 100 });
    for (const port of this.sentinelPorts) {
      // A sentinel rewrites its configuration file as it learns the group: one file each.
      const file = join(this.dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${this.dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${MASTER_NAME} 10000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      this.sentinels.push(spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' }));
    }
    await waitFor(() => this.sentinelsSeeTheGroup(), { timeoutMs: 30_000, intervalMs: 100 });
  }

  private async replicaInSync(port: number): Promise<boolean> {
    const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, lazyConnect: true });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.info('replication')).includes('master_link_status:up');
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  }

  /** Every sentinel answers, knows the replica and the other sentinels: a failover can happen. */
  private async sentinelsSeeTheGroup(): Promise<boolean> {
    for (const port of this.sentinelPorts) {
      if (!(await redisAnswers(port))) return false;
      const sentinel = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
      sentinel.on('error', () => undefined);
      try {
        const master = (await sentinel.call('SENTINEL', 'master', MASTER_NAME)) as string[];
        const field = (name: string) => Number(master[master.indexOf(name) + 1]);
        if (field('num-slaves') < 1 || field('num-other-sentinels') < SENTINELS - 1) return false;
      } catch {
        return false;
      } finally {
        sentinel.disconnect();
      }
    }
    return true;
  }
}
