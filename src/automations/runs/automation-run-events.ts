import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import type { SqlRunner } from '../../platform/database/sql-runner';
import { WebhookPublisher } from '../../webhooks/webhook-publisher';
import type { EndedRun } from './automation-runs.repository';

/**
 * `automation_run.completed` and `automation_run.exited`, written in the transaction that
 * ended the runs, so an event goes out if and only if the run really ended. The payload
 * names ids only (never an address): an erased person's run carries a null subscriber_id.
 */
@Injectable()
export class AutomationRunEvents {
  constructor(private readonly publisher: WebhookPublisher) {}

  async ended(
    db: SqlRunner,
    accountId: AccountId,
    runs: (EndedRun & { status: 'completed' | 'exited' | 'failed' })[],
  ): Promise<void> {
    const wanted = runs.filter((run) => run.status !== 'failed');
    if (wanted.length === 0) return;
    const types = await this.publisher.wantedTypes(accountId, db);
    const events = wanted
      .map((run) => ({
        type:
          run.status === 'completed'
            ? ('automation_run.completed' as const)
            : ('automation_run.exited' as const),
        occurredAt: run.ended_at ?? new Date(),
        subscriberId: run.subscriber_id,
        data: {
          id: run.id,
          automation_id: run.automation_id,
          subscriber_id: run.subscriber_id,
          status: run.status,
          exit_reason: run.exit_reason,
        },
      }))
      .filter((event) => types.has(event.type));
    if (events.length > 0) await this.publisher.publish(db, accountId, events);
  }
}
