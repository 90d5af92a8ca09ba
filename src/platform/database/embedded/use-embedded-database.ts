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
  // Until the process's own shutdown handling is in place (closeOnSignals, once it has booted),
  // SIGTERM or SIGINT would end it without an 'exit' event, leaving the server behind: exit here
  // instead. Once that handling listens too, it decides, and this one stands aside.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(signal === 'SIGTERM' ? 143 : 130);
    });
  }
}
