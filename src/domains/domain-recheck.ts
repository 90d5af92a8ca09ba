import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SenderDomainsService } from './sender-domains.service';

const TICK_MS = 10 * 60_000;
const RECHECK_AFTER_MS = 24 * 60 * 60_000;

/**
 * Every domain's records are looked up again once a day, so a removed record (or one
 * published after a failed verification) shows in its status without anyone asking. A timer in
 * every worker process; each pass claims the domains that are due before checking them, so
 * workers never check the same domain twice.
 */
@Injectable()
export class DomainRecheck implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DomainRecheck.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly domains: SenderDomainsService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the domains due; `recheckAfterMs` is shortened by tests. */
  run(recheckAfterMs = RECHECK_AFTER_MS): Promise<number> {
    return this.domains.recheckDue(new Date(Date.now() - recheckAfterMs));
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.run()
      .catch((error: unknown) => this.logger.error({ err: error }, 'domain re-check failed'))
      .finally(() => {
        this.running = undefined;
      });
  }
}
