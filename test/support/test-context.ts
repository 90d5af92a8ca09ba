import type { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../src/app.module';
import { PrismaService } from '../../src/platform/database/prisma.service';
import { Factories } from './factories';
import { TestEnv } from './test-env';

/**
 * Herald's services and repositories without HTTP, for the medium tier: the API's own module
 * graph (every domain module, erasure participants registered) as a Nest application context
 * on a TestEnv's database, with no server and no workers. Redis is reached only because the
 * domain modules register their queues (under the env's own key prefix); nothing consumes
 * them, so a test drives each unit of work itself.
 */
export class TestContext {
  /** Accounts, keys, subscribers, templates, segments, campaigns: see Factories. */
  readonly make: Factories;

  private constructor(readonly app: INestApplicationContext) {
    this.make = new Factories(app);
  }

  static async start(env: TestEnv): Promise<TestContext> {
    const app = await NestFactory.createApplicationContext(
      AppModule.api(env.config, { workers: false }),
      { logger: false },
    );
    return new TestContext(app);
  }

  /** A provider from anywhere in the graph, as its module's consumers get it. */
  get<T>(type: Type<T>): T {
    return this.app.get(type, { strict: false });
  }

  get prisma(): PrismaService {
    return this.get(PrismaService);
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}
