import { Global, Injectable, Module } from '@nestjs/common';
import { PgPool } from '../platform/database/pg-pool';
import { ShutdownState } from '../platform/lifecycle';
import { SharedStore } from '../platform/store/shared-store';

/** How long each store has to answer a probe before it counts as away. */
export const CHECK_TIMEOUT_MS = 2000;

export interface Readiness {
  ready: boolean;
  database: boolean;
  redis: boolean;
  /** Told to stop (SIGTERM): not ready, whatever the stores say. */
  stopping: boolean;
}

/**
 * What every process's probes ask: do PostgreSQL and Redis answer within CHECK_TIMEOUT_MS, and
 * is the process still meant to take work? The API answers it on GET /health/ready, a worker on
 * its METRICS_PORT.
 */
@Injectable()
export class ReadinessProbe {
  constructor(
    private readonly pool: PgPool,
    private readonly store: SharedStore,
    private readonly shutdown: ShutdownState,
  ) {}

  async stores(): Promise<{ database: boolean; redis: boolean }> {
    const [database, redis] = await Promise.all([
      answers(this.pool.query('SELECT 1')),
      answers(this.store.ping()),
    ]);
    return { database, redis };
  }

  async check(): Promise<Readiness> {
    const stopping = this.shutdown.stopping;
    const { database, redis } = await this.stores();
    return { ready: database && redis && !stopping, database, redis, stopping };
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

/** The probes' logic, for every process type (the API's controllers, a worker's port). */
@Global()
@Module({ providers: [ReadinessProbe], exports: [ReadinessProbe] })
export class ReadinessModule {}
