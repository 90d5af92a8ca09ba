import { ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './processes';
import { killServer, redisAnswers, spawnRedisServer } from './throwaway-redis';
import { waitFor } from './wait-for';

const run = promisify(execFile);
const NODES = 3;
/** A node's cluster bus listens on its port + 10000. */
const BUS_OFFSET = 10_000;

/**
 * A three-node Redis Cluster of a test's own (`redis-server --cluster-enabled yes` three times,
 * joined by `redis-cli --cluster create`, the 16384 slots split between them), on free
 * loopback ports, nothing persisted. `clusterNodes` is what REDIS_CLUSTER_NODES says to reach it.
 */
export class ThrowawayRedisCluster {
  private readonly servers: ChildProcess[] = [];

  private constructor(
    private readonly dir: string,
    readonly ports: number[],
  ) {}

  static async start(): Promise<ThrowawayRedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'herald-cluster-'));
    const ports: number[] = [];
    while (ports.length < NODES) {
      const port = await freePort();
      const taken = ports.some(
        (p) => p === port || p === port + BUS_OFFSET || p + BUS_OFFSET === port,
      );
      if (!taken && port + BUS_OFFSET <= 65_535 && (await portFree(port + BUS_OFFSET))) {
        ports.push(port);
      }
    }
    const cluster = new ThrowawayRedisCluster(dir, ports);
    try {
      await cluster.boot();
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  get clusterNodes(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  /** How many of the nodes hold keys now: Herald's keys share one hash tag, so one. */
  async nodesWithKeys(): Promise<number> {
    let holding = 0;
    for (const port of this.ports) {
      const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
      try {
        if ((await node.dbsize()) > 0) holding++;
      } finally {
        node.disconnect();
      }
    }
    return holding;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.servers.map(killServer));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async boot(): Promise<void> {
    for (const port of this.ports) {
      this.servers.push(
        spawnRedisServer(port, this.dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '5000',
        ]),
      );
    }
    for (const port of this.ports) {
      await waitFor(() => redisAnswers(port), { timeoutMs: 15_000, intervalMs: 50 });
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...this.ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await waitFor(() => this.everyNodeOk(), { timeoutMs: 30_000, intervalMs: 100 });
  }

  private async everyNodeOk(): Promise<boolean> {
    for (const port of this.ports) {
      const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
      node.on('error', () => undefined);
      try {
        const info = (await node.call('CLUSTER', 'INFO')) as string;
        if (!info.includes('cluster_state:ok')) return false;
      } catch {
        return false;
      } finally {
        node.disconnect();
      }
    }
    return true;
  }
}

async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
