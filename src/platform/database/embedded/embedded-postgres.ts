import { spawnSync, SpawnSyncOptions } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { EmbeddedDatabaseConfig } from '../../config/embedded-database-config';
import { withDirectoryLock } from './directory-lock';
import { PostgresBinaries, postgresBinaries } from './embedded-postgres-binaries';
import { processAlive } from './process-alive';

/** How long the server has to come up (initdb's first run included) before we give up. */
const START_TIMEOUT_SECONDS = 120;
const WAIT_STEP_MS = 50;

/** Who the server runs as: this process's user, or another when this one is root. */
interface Owner {
  uid: number;
  gid: number;
}

/**
 * The PostgreSQL that Herald runs itself when DATABASE_URL is unset: real PostgreSQL binaries
 * from npm, one server per data directory, listening on a Unix socket only (no TCP port to
 * collide with or to expose). Every Herald process of the installation (API, workers, CLI,
 * migrations) joins it: the first one starts it, each registers its pid, and the last one to
 * exit stops it (a fast shutdown: connections end, everything committed is on disk). A
 * process killed outright leaves its pid behind; the next one to leave notices it is dead.
 */
export class EmbeddedPostgres {
  private readonly binaries: PostgresBinaries = postgresBinaries();
  private readonly dataDir: string;
  private readonly usersDir: string;
  private readonly lockFile: string;
  private readonly logFile: string;
  private readonly owner: Owner | undefined;

  constructor(
    private readonly config: EmbeddedDatabaseConfig,
    private readonly say: (line: string) => void,
  ) {
    this.dataDir = join(config.dir, 'data');
    this.usersDir = join(config.dir, 'users');
    this.lockFile = join(config.dir, 'lock');
    this.logFile = join(config.dir, 'postgres.log');
    this.owner = serverOwner(config.runAsUser);
  }

  /** Starts the server unless it runs already, and counts this process among its users. */
  join(): void {
    mkdirSync(this.usersDir, { recursive: true });
    withDirectoryLock(this.lockFile, () => {
      if (!existsSync(join(this.dataDir, 'PG_VERSION'))) this.initialise();
      if (!this.waitWhileStartingOrStopping()) this.start();
      writeFileSync(join(this.usersDir, String(process.pid)), '');
    });
  }

  /** Leaves the server; the last user stops it. Synchronous: it runs in an 'exit' handler. */
  leave(): void {
    withDirectoryLock(this.lockFile, () => {
      unlinkQuietly(join(this.usersDir, String(process.pid)));
      const others = readdirSync(this.usersDir).filter((pid) => {
        if (processAlive(Number(pid))) return true;
        unlinkQuietly(join(this.usersDir, pid));
        return false;
      });
      const server = this.postmaster();
      if (others.length === 0 && server) process.kill(server.pid, 'SIGINT');
    });
  }

  /** initdb into a scratch directory, renamed into place once complete. */
  private initialise(): void {
    const scratch = `${this.dataDir}.init`;
    rmSync(scratch, { recursive: true, force: true });
    this.ownedDirectory(this.config.dir);
    this.ownedDirectory(scratch);
    this.say(`initialising the embedded PostgreSQL in ${this.dataDir}`);
    this.run(this.binaries.initdb, [
      `--pgdata=${scratch}`,
      '--username=postgres',
      // Only the socket below reaches it, and only its owner (and root) may open that.
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    renameSync(scratch, this.dataDir);
  }

  private start(): void {
    this.ownedDirectory(this.config.socketDir);
    this.say(`starting the embedded PostgreSQL (${this.dataDir}, log ${this.logFile})`);
    if (this.owner && existsSync(this.logFile))
      chownSync(this.logFile, this.owner.uid, this.owner.gid);
    const options = [
      "-c listen_addresses=''",
      `-c unix_socket_directories=${shellQuoted(this.config.socketDir)}`,
      '-c unix_socket_permissions=0700',
      // BullMQ's PostgreSQL backend gives each queue and worker a small pool of its own.
      '-c max_connections=300',
    ].join(' ');
    this.run(this.binaries.pgCtl, [
      'start',
      '--pgdata',
      this.dataDir,
      '--log',
      this.logFile,
      '--wait',
      '--timeout',
      String(START_TIMEOUT_SECONDS),
      '--silent',
      '-o',
      options,
    ]);
  }

  /**
   * Waits while a server of this directory is starting or shutting down (the last user of a
   * moment ago may have just stopped it). True when it runs and accepts connections.
   */
  private waitWhileStartingOrStopping(): boolean {
    const deadline = Date.now() + START_TIMEOUT_SECONDS * 1000;
    for (;;) {
      const server = this.postmaster();
      if (!server) return false;
      if (server.status === 'ready') return true;
      if (Date.now() > deadline) {
        throw new Error(
          `The embedded PostgreSQL (process ${server.pid}) stayed "${server.status}" for ` +
            `${START_TIMEOUT_SECONDS} s; see ${this.logFile}`,
        );
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAIT_STEP_MS);
    }
  }

  /** The running server of this directory, from PostgreSQL's own postmaster.pid. */
  private postmaster(): { pid: number; status: string } | undefined {
    let lines: string[];
    try {
      lines = readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n');
    } catch {
      return undefined;
    }
    const pid = Number(lines[0]);
    if (!pid || !processAlive(pid)) return undefined;
    // Line 8 is the server's state: starting, ready, stopping (PostgreSQL 10 and later).
    return { pid, status: (lines[7] ?? '').trim() || 'starting' };
  }

  private ownedDirectory(path: string): void {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (this.owner) chownSync(path, this.owner.uid, this.owner.gid);
  }

  private run(file: string, args: string[]): void {
    const options: SpawnSyncOptions = {
      encoding: 'utf8',
      env: { ...process.env, LC_MESSAGES: 'C' },
      ...(this.owner ?? {}),
    };
    const result = spawnSync(file, args, options);
    if (result.status !== 0) {
      const output = `${String(result.stderr ?? '')}${String(result.stdout ?? '')}`.trim();
      // Run as another user, the server must be able to reach its directory.
      const reach =
        this.owner && output.includes('Permission denied')
          ? ` The user "${this.config.runAsUser}" cannot reach ${this.config.dir}: every directory above it must let others through (chmod o+x), or choose another with EMBEDDED_POSTGRES_DIR.`
          : '';
      throw new Error(
        `The embedded PostgreSQL could not start (${file.split('/').pop()} ${
          result.error?.message ?? `exited ${result.status}`
        })${output ? `: ${output}` : ''}.${reach} See ${this.logFile}; or set DATABASE_URL.`,
      );
    }
  }
}

/**
 * PostgreSQL refuses to run as root. Run as root, the server runs as `runAsUser` (a system
 * user, `postgres` by default, as packaged PostgreSQL does); without such a user, a message
 * that says what to do instead.
 */
function serverOwner(runAsUser: string): Owner | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, runAsUser], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no system user "${runAsUser}" to run ` +
        'the embedded PostgreSQL as. Run Herald as an ordinary user, create that user ' +
        `(useradd --system --user-group ${runAsUser}), name another with EMBEDDED_POSTGRES_USER, ` +
        'or set DATABASE_URL to a PostgreSQL of your own.',
    );
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function shellQuoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
