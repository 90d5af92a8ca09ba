import { Controller, Get, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator';
import { PrismaService } from '../platform/database/prisma.service';
import { RedisService } from '../platform/redis/redis.module';

const CHECK_TIMEOUT_MS = 2000;

/** GET /health: 200 once PostgreSQL and Redis both answer, else 503. */
@ApiExcludeController()
@Public({ perAddressLimit: false })
@Controller('health')
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
  ) {}

  @Get()
  async health(@Res() reply: FastifyReply): Promise<void> {
    const [database, redis] = await Promise.all([
      answers(this.prisma.$queryRaw`SELECT 1`),
      answers(this.redis.ping()),
    ]);
    const ok = database && redis;
    await reply
      .status(ok ? 200 : 503)
      .send(ok ? { status: 'ok' } : { status: 'unavailable', database, redis });
  }
}

async function answers(probe: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe.then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
