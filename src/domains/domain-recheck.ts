import { Injectable } from '@nestjs/common';
import { PeriodicService } from '../platform/timing/periodic-task';
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
export class DomainRecheck extends PeriodicService {
  constructor(private readonly domains: SenderDomainsService) {
    super('domain re-check', TICK_MS);
  }

  protected pass(): Promise<number> {
    return this.run();
  }

  /** One pass over the domains due; `recheckAfterMs` is shortened by tests. */
  run(recheckAfterMs = RECHECK_AFTER_MS): Promise<number> {
    return this.domains.recheckDue(new Date(Date.now() - recheckAfterMs));
  }
}
