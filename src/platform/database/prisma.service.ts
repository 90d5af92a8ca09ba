import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client';
import { PgPool } from './pg-pool';

@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(pool: PgPool) {
    super({ adapter: new PrismaPg(pool) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
