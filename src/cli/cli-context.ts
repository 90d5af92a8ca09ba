import 'reflect-metadata';
import { DynamicModule, INestApplicationContext, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuditModule } from '../audit/audit-log';
import { loadConfig } from '../platform/config/config';
import { ConfigModule } from '../platform/config/config.module';
import { CryptoModule } from '../platform/crypto/crypto.module';
import { DatabaseModule } from '../platform/database/database.module';
import { useEmbeddedDatabase } from '../platform/database/embedded/use-embedded-database';

/** The root of the CLI's Nest context; its imports are chosen per command. */
@Module({})
class CliModule {}

/**
 * Runs `work` in a Nest context holding the configuration, PostgreSQL, hashing, the audit log
 * and the domain modules one command names, then closes it. Nothing else starts: no Redis,
 * queues, mail or HTTP, which no command uses and which made every call take seconds. The
 * CLI builds this root itself because importing the application's root module would load
 * every domain of Herald.
 */
export async function runInContext<T>(
  domains: Type[],
  work: (app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  useEmbeddedDatabase(config, { quiet: true });
  const root: DynamicModule = {
    module: CliModule,
    imports: [ConfigModule.forRoot(config), DatabaseModule, CryptoModule, AuditModule, ...domains],
  };
  const app = await NestFactory.createApplicationContext(root, { logger: false });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}
