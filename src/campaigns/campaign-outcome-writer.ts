import { Inject, Injectable } from '@nestjs/common';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { PgPool } from '../platform/database/pg-pool';
import { CampaignSend, SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { MailEvents } from '../stats/mail-events';
import { SuppressionList } from '../suppression/suppression-list';
import { campaignMailEvents } from './campaign-events';
import {
  CampaignDeliveryRunsRepository,
  RunCounts,
  RunIdentity,
} from './campaign-delivery-runs.repository';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import type { FinalOutcome, Outcome, SkipReason } from './recipient-outcome';

/**
 * Writes the outcomes of one chunk of deliveries in one transaction on PgPool (the hot path:
 * see docs/decisions.md): the ledger rows, the recipients' statistics and the run's counters,
 * in bulk. Only rows the run still holds are written, and everything counted follows the rows
 * written, so an outcome reported twice, or by a run whose claim was taken over, counts once
 * or not at all. The campaign row is not touched: concurrent runs never wait on each other.
 * Temporary refusals become deferrals (or failures, past the retry horizon).
 */
@Injectable()
export class CampaignOutcomeWriter {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly pool: PgPool,
    private readonly ledger: CampaignLedgerRepository,
    private readonly runs: CampaignDeliveryRunsRepository,
    private readonly statistics: SubscriberStatistics,
    private readonly suppressions: SuppressionList,
    private readonly mailEvents: MailEvents,
  ) {}

  async record(run: RunIdentity, outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const final = outcomes.filter((o): o is FinalOutcome => o.kind !== 'deferred');
    const deferred = outcomes.filter((o) => o.kind === 'deferred');
    const { accountId, campaignId } = run;

    await this.pool.transaction(async (client) => {
      const written = await this.ledger.writeOutcomes(run, final, client);
      const applied = final.filter((o) => written.has(o.subscriberId));
      // A refusal past the retry horizon is final: a failure, counted as a soft bounce.
      const expired = await this.ledger.defer(run, deferred, this.config.smtpRetry, client);
      applied.push(...expired);

      const sends: CampaignSend[] = [];
      for (const o of applied) {
        if (o.kind === 'skipped') continue;
        const hardBounce = o.kind === 'failed' && o.hardBounce;
        sends.push({ subscriberId: o.subscriberId, delivered: o.kind === 'delivered', hardBounce });
      }
      const bounced = await this.statistics.recordCampaignSends(accountId, sends, client);
      // A refusal at SMTP time suppresses the address like a bounce report would.
      await this.suppressions.suppressMany(client, accountId, bounced, 'hard_bounce');
      await this.runs.count(run, countsOf(applied), client);
      await this.mailEvents.record(client, accountId, campaignMailEvents(campaignId, applied));
    });
  }
}

function countsOf(applied: FinalOutcome[]): RunCounts {
  const count = (predicate: (o: FinalOutcome) => boolean) => applied.filter(predicate).length;
  const skipped = (reason: SkipReason) => count((o) => o.kind === 'skipped' && o.reason === reason);
  return {
    delivered: count((o) => o.kind === 'delivered'),
    failed: count((o) => o.kind === 'failed'),
    hardBounces: count((o) => o.kind === 'failed' && o.hardBounce),
    // A relay's temporary refusal that outlasted the retry horizon: a soft bounce.
    softBounces: count((o) => o.kind === 'failed' && !o.hardBounce && o.smtpCode !== undefined),
    skippedErased: skipped('erased'),
    skippedUnsubscribed: skipped('unsubscribed'),
    skippedBounced: skipped('bounced'),
    skippedComplained: skipped('complained'),
    skippedSuppressed: skipped('suppressed'),
  };
}
