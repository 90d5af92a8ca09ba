import { Global, Module } from '@nestjs/common';
import { PgPool } from './pg-pool';
import { PrismaService } from './prisma.service';

@Global()
@Module({ providers: [PgPool, PrismaService], exports: [PgPool, PrismaService] })
export class DatabaseModule {}
