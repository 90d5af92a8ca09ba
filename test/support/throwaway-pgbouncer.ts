import { ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './processes';
import { waitFor } from './wait-for';

const run = promisify(execFile);

export interface PgBouncerOptions {
  /** The PostgreSQL server every database name is forwarded to (host and port). */
  host?: string;
  port?: number;
  /** Server connections per database and user: few, so clients share them (default 8). */
  poolSize?: number;
  /** The statement bound set on every server connection, as an operator would set it. */
  statementTimeoutMs?: number;
}

/**
 * Debian's PgBouncer (1.18 on Debian 12) of a test's own, in transaction mode, on a free
 * loopback port: every database name is forwarded to one PostgreSQL server, and each
 * transaction gets whichever server connection is free, as in production. Trust
 * authentication. The database `solo` (forwarded to `soloDatabase`, when given) has a
 * single server connection, so two clients' sessions are sure to land on the same one.
 */
export class ThrowawayPgBouncer {
  private constructor(
    private readonly process: ChildProcess,
    private readonly root: string,
    readonly port: number,
  ) {}

  static async start(
    options: PgBouncerOptions = {},
    soloDatabase?: string,
  ): Promise<ThrowawayPgBouncer> {
    const host = options.host ?? '127.0.0.1';
    const serverPort = options.port ?? 5432;
    const timeout = options.statementTimeoutMs ?? 10_000;
    const root = await mkdtemp(join(tmpdir(), 'herald-pgbouncer-'));
    const port = await freePort();
    const connectQuery =
      `connect_query='SET statement_timeout = ${timeout}; ` +
      `SET client_connection_check_interval = 1000'`;
    const solo = soloDatabase
      ? `solo = host=${host} port=${serverPort} dbname=${soloDatabase} pool_size=1\n`
      : '';
    await writeFile(join(root, 'userlist.txt'), '"postgres" ""\n');
    await writeFile(
      join(root, 'pgbouncer.ini'),
      `[databases]
${solo}* = host=${host} port=${serverPort} ${connectQuery}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(root, 'userlist.txt')}
pool_mode = transaction
default_pool_size = ${options.poolSize ?? 8}
max_client_conn = 1000
max_db_connections = 0
logfile = ${join(root, 'pgbouncer.log')}
pidfile = ${join(root, 'pgbouncer.pid')}
`,
    );
    // PgBouncer refuses to run as root; CI and the dev container run tests as root.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) await chown(root, ...(await postgresIds()));
    const [command, args] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', pgbouncerBinary(), join(root, 'pgbouncer.ini')]]
      : [pgbouncerBinary(), [join(root, 'pgbouncer.ini')]];
    const child = spawn(command, args, { stdio: 'ignore' });
    const bouncer = new ThrowawayPgBouncer(child, root, port);
    await waitFor(() => bouncer.answers(), { timeoutMs: 30_000, intervalMs: 100 });
    return bouncer;
  }

  /** The URL of `database` through PgBouncer. */
  urlFor(database: string): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async dispose(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = once(this.process, 'exit');
      // runuser does not pass signals on: SIGINT (PgBouncer's immediate shutdown) goes to
      // PgBouncer itself, by the pid it wrote.
      const pid = Number((await readFile(join(this.root, 'pgbouncer.pid'), 'utf8')).trim());
      process.kill(pid, 'SIGINT');
      await exited;
    }
    await rm(this.root, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    const client = new Client({ connectionString: this.urlFor('postgres') });
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
}

function pgbouncerBinary(): string {
  return '/usr/sbin/pgbouncer';
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return [Number(stdout.trim()), Number(group.trim())];
}
