import { loadConfig } from '../config/config';
import { useEmbeddedDatabase } from './embedded/use-embedded-database';
import { migrate } from './migrator';

/**
 * `npm run db:migrate` (part of `npm run setup`): create the database if missing, migrate.
 * Straight to PostgreSQL (DATABASE_DIRECT_URL): the migrator holds a session-level lock and
 * runs each migration in its own transaction, neither of which a transaction pooler keeps.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  useEmbeddedDatabase(config);
  const databaseUrl = config.database.directUrl;
  const applied = await migrate(databaseUrl);
  const where = new URL(databaseUrl);
  where.password = '';
  console.log(
    applied.length
      ? `Applied ${applied.length} migration(s) to ${where.toString()}: ${applied.join(', ')}`
      : `Database ${where.toString()} is up to date.`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
