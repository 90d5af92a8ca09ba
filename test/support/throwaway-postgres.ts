import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './processes';
import { waitFor } from './wait-for';

const run = promisify(execFile);

/**
 * A PostgreSQL server of a test's own, to stop and start at will (the shared one on 5432 must
 * stay up for everyone else): a fresh cluster in a temporary folder on a free loopback port,
 * trust authentication, no fsync (the operating system still has every write, so an immediate
 * stop loses nothing a real crash of PostgreSQL alone would keep). `dispose()` removes it all.
 */
export class ThrowawayPostgres {
  private constructor(
    private readonly bin: string,
    private readonly dataDir: string,
    private readonly root: string,
    readonly port: number,
  ) {}

  static async start(): Promise<ThrowawayPostgres> {
    const bin = postgresBinaries();
    const root = await mkdtemp(join(tmpdir(), 'herald-pg-'));
    const dataDir = join(root, 'data');
    // initdb refuses to run as root; CI and the dev container run tests as root.
    if (runsAsRoot()) await chown(root, ...(await postgresIds()));
    const cluster = new ThrowawayPostgres(bin, dataDir, root, await freePort());
    await cluster.pgTool('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    await cluster.resume();
    return cluster;
  }

  /** The server's URL without a database: append `/name`. */
  get serverUrl(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}`;
  }

  /** Like a crash of the server: every backend ends at once, nothing is flushed or said. */
  async crash(): Promise<void> {
    await this.pgTool('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
  }

  /** Starts it again on the same port (after crash(), with crash recovery) and waits for it. */
  async resume(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-c listen_addresses=127.0.0.1`,
      `-c unix_socket_directories=''`,
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
      '-c shared_buffers=64MB',
    ].join(' ');
    await this.pgTool('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.root, 'server.log'),
      '-o',
      options,
      '-w',
      '-t',
      '60',
      'start',
    ]);
    await waitFor(() => this.answers(), { timeoutMs: 30_000, intervalMs: 100 });
  }

  /** Stops it for good and deletes its files. Safe to call whatever state it is in. */
  async dispose(): Promise<void> {
    await this.pgTool('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(
      () => undefined,
    );
    await rm(this.root, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    const client = new Client({ connectionString: `${this.serverUrl}/postgres` });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async pgTool(tool: string, args: string[]): Promise<void> {
    const path = join(this.bin, tool);
    const [command, commandArgs] = runsAsRoot()
      ? ['runuser', ['-u', 'postgres', '--', path, ...args]]
      : [path, args];
    try {
      await run(command, commandArgs, { cwd: this.root, timeout: 90_000 });
    } catch (error) {
      const failed = error as Error & { stderr?: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${failed.stderr ?? failed.message}`, {
        cause: error,
      });
    }
  }
}

/** The newest installed server's binaries (Debian keeps them out of PATH). */
function postgresBinaries(): string {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((version) => existsSync(join(base, version, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(base, versions[0], 'bin');
  }
  throw new Error('no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql');
}

function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return [Number(stdout.trim()), Number(group.trim())];
}
