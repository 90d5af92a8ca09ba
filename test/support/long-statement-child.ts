import { loadConfig } from '../../src/platform/config/config';
import { PgPool } from '../../src/platform/database/pg-pool';

/**
 * A process that runs one long statement through Herald's pool and tells its parent when it
 * has started, for a test to kill it mid-statement (test/medium/pg-pool). argv: the database
 * URL and a tag that names the statement in pg_stat_activity.
 */
const [databaseUrl, tag] = process.argv.slice(2);
const pool = new PgPool(
  loadConfig({
    DATABASE_URL: databaseUrl,
    HERALD_SECRET: 'x'.repeat(32),
    DB_STATEMENT_TIMEOUT_MS: '600000',
  }),
);
process.send!('started');
void pool.query(`SELECT pg_sleep(600), '${tag}'`);
