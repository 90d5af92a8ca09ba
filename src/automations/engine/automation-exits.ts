import { Injectable } from '@nestjs/common';
import { accountIdOfRow } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { EXITS_BATCH, EXITS_TICK_MS } from '../automations.settings';
import { AutomationRunEvents } from '../runs/automation-run-events';
import { AutomationRunsRepository } from '../runs/automation-runs.repository';

/**
 * A run leaves, `exited` with the reason, as soon as its subscriber stops being mailable:
 * unsubscribed, bounced, complained or suppressed, found by this sweep every few seconds
 * whoever made the change (erasure is AutomationErasure's, in the erasing transaction). The
 * engine checks again before every step, so no step sends after the change even before the
 * sweep comes.
 */
@Injectable()
export class AutomationExits extends PeriodicService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly runs: AutomationRunsRepository,
    private readonly events: AutomationRunEvents,
  ) {
    super('automation exits sweep', EXITS_TICK_MS);
  }

  protected async pass(): Promise<void> {
    for (;;) {
      const exited = await this.prisma.$transaction(async (tx) => {
        const rows = await this.runs.exitUnmailable(EXITS_BATCH, tx);
        const byAccount = new Map<string, typeof rows>();
        for (const row of rows)
          byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row]);
        for (const [accountId, runs] of byAccount) {
          await this.events.ended(
            tx,
            accountIdOfRow(accountId),
            runs.map((run) => ({ ...run, status: 'exited' as const })),
          );
        }
        return rows.length;
      });
      if (exited < EXITS_BATCH) return;
    }
  }
}
