import type { HeraldConfig } from '../../config/config';
import { EmbeddedPostgres } from './embedded-postgres';

/**
 * Every entry point's first step: with DATABASE_URL unset, joins (or starts) the embedded
 * PostgreSQL that config.databaseUrl points at, and leaves it when the process exits. With
 * DATABASE_URL set, nothing. `quiet`: say nothing (the CLI's stdout and stderr are its answer).
 */
export function useEmbeddedDatabase(config: HeraldConfig, { quiet = false } = {}): void {
  if (!config.embeddedDatabase) return;
  const server = new EmbeddedPostgres(config.embeddedDatabase, (line) => {
    if (!quiet) process.stderr.write(`${line}\n`);
  });
  server.join();
  process.once('exit', () => server.leave());
}
