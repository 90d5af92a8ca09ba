import { Controller, Get, Headers, Inject, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { ApiError } from '../platform/errors/api-errors';
import { HeraldMetrics } from '../platform/metrics/herald-metrics';
import { mayReadMetrics } from './metrics-access';
import { ReadinessProbe } from './readiness';

/**
 * The operator's routes, outside /v1 and without a key: GET /health (200 once
 * PostgreSQL and Redis both answer, else 503), the probes /health/live and /health/ready, and
 * GET /metrics (behind METRICS_TOKEN when it is set).
 */
@ApiExcludeController()
@Public({ perAddressLimit: false })
@Controller()
export class HealthController {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly readiness: ReadinessProbe,
    private readonly metrics: HeraldMetrics,
  ) {}

  @Get('health')
  async health(@Res() reply: FastifyReply): Promise<void> {
    const { database, redis } = await this.readiness.stores();
    const ok = database && redis;
    await reply
      .status(ok ? 200 : 503)
      .send(ok ? { status: 'ok' } : { status: 'unavailable', database, redis });
  }

  /** 200 while the process runs: an orchestrator restarts a process only when this fails. */
  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * 200 while the process should take work: both stores answer and it has not been told to
   * stop; else 503, saying which (`stopping` from SIGTERM on).
   */
  @Get('health/ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const { ready, database, redis, stopping } = await this.readiness.check();
    await reply
      .status(ready ? 200 : 503)
      .send(
        ready
          ? { status: 'ok' }
          : { status: stopping ? 'stopping' : 'unavailable', database, redis },
      );
  }

  @Get('metrics')
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!mayReadMetrics(this.config.metrics, authorization)) {
      throw new ApiError(401, 'GET /metrics takes METRICS_TOKEN as a bearer token.');
    }
    const { contentType, body } = await this.metrics.render();
    await reply.status(200).header('content-type', contentType).send(body);
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
