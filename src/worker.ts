import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from './worker.module';
import { loadConfig } from './platform/config/config';
import { closeOnSignals } from './platform/lifecycle';
import { createLogger, PinoNestLogger } from './platform/logging/logger';

/** `npm run start:worker`: the send workers without HTTP. Run as many as you like. */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: new PinoNestLogger(createLogger(config.logLevel)),
  });
  closeOnSignals(app);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
