import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The PostgreSQL Herald runs itself when DATABASE_URL is unset (src/platform/database/embedded). */
export interface EmbeddedDatabaseConfig {
  /** EMBEDDED_POSTGRES_DIR (default ./var/postgres): the cluster, its socket, log and users. */
  dir: string;
  /** Where the server's Unix socket lives: it listens on no TCP port at all. */
  socketDir: string;
  /** The DATABASE_URL that reaches it. */
  url: string;
  /**
   * EMBEDDED_POSTGRES_USER (default `postgres`): PostgreSQL refuses to run as root, so when
   * Herald runs as root the server runs as this system user.
   */
  runAsUser: string;
}

/** A Unix socket path longer than this does not fit in sockaddr_un (108 bytes on Linux). */
const MAX_SOCKET_PATH = 100;

export function embeddedDatabaseOf(
  env: Record<string, string | undefined>,
): EmbeddedDatabaseConfig {
  const dir = resolve(env.EMBEDDED_POSTGRES_DIR ?? 'var/postgres');
  // The socket file is `.s.PGSQL.5432` in that directory; a checkout deep in the file system
  // gets one under the temporary directory instead, named after the data directory.
  const inside = join(dir, 'run');
  const socketDir =
    join(inside, '.s.PGSQL.5432').length <= MAX_SOCKET_PATH
      ? inside
      : join(tmpdir(), `herald-pg-${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`);
  return {
    dir,
    socketDir,
    url: `postgresql://postgres@localhost/herald?host=${encodeURIComponent(socketDir)}`,
    runAsUser: env.EMBEDDED_POSTGRES_USER ?? 'postgres',
  };
}
