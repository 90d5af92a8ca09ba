import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client';
import { TRANSACTION_MAX_WAIT_MS, TRANSACTION_TIMEOUT_MS } from '../settings';
import { PgPool } from './pg-pool';

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(pool: PgPool) {
    super({
      adapter: new PrismaPg(pool),
      transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS, timeout: TRANSACTION_TIMEOUT_MS },
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
