import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client';
import {
  PRISMA_WARM_UP_MAX_MS,
  TRANSACTION_MAX_WAIT_MS,
  TRANSACTION_TIMEOUT_MS,
} from '../settings';
import { waitAtMost } from '../timing/wait-at-most';
import { NO_ACCOUNT } from './nothing-ids';
import { PgPool } from './pg-pool';

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PrismaService.name);

  constructor(pool: PgPool) {
    super({
      adapter: new PrismaPg(pool),
      transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS, timeout: TRANSACTION_TIMEOUT_MS },
    });
  }

  /**
   * A process's first model query loads Prisma's query compiler, which holds the event loop
   * for a tenth of a second or more: in an API process that was the first request's cost, and
   * every request that came in meanwhile (a health check, say) waited behind it. So a query
   * that reads nothing runs at boot, before the process takes any work. The compiler is loaded
   * before the query reaches the database, whether the database answers or not; the boot waits
   * for the answer at most PRISMA_WARM_UP_MAX_MS, since a database that is away is the
   * readiness probe's business.
   */
  async onModuleInit(): Promise<void> {
    const warmUp = this.account
      .findFirst({ where: { id: NO_ACCOUNT }, select: { id: true } })
      .catch((error: unknown) => this.logger.debug(`warm-up query failed: ${String(error)}`));
    await waitAtMost(warmUp, PRISMA_WARM_UP_MAX_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
