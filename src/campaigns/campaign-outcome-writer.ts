import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import { PgPool } from '../platform/database/pg-pool';
import { CampaignSend, SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { MailEvents } from '../stats/mail-events';
import { SuppressionList } from '../suppression/suppression-list';
import { campaignMailEvents } from './campaign-events';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { CampaignsRepository } from './campaigns.repository';
import type { FinalOutcome, Outcome, SkipReason } from './recipient-outcome';

/**
 * Writes the outcomes of one chunk of deliveries in one transaction on PgPool (the hot path:
 * see docs/decisions.md): the ledger rows, the recipients' statistics and the campaign
 * counters, in bulk. Deferred recipients stay claimed. Locks go campaign row first, then
 * subscribers in id order, so concurrent chunks and erasures cannot deadlock.
 */
@Injectable()
export class CampaignOutcomeWriter {
  constructor(
    private readonly pool: PgPool,
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly statistics: SubscriberStatistics,
    private readonly suppressions: SuppressionList,
    private readonly mailEvents: MailEvents,
  ) {}

  async record(accountId: AccountId, campaignId: string, outcomes: Outcome[]): Promise<void> {
    const final = outcomes.filter((o): o is FinalOutcome => o.kind !== 'deferred');
    const deferred = outcomes.filter((o) => o.kind === 'deferred' && o.smtpCode !== undefined);
    if (final.length === 0 && deferred.length === 0) return;

    await this.pool.transaction(async (client) => {
      await this.campaigns.lockForOutcomes(accountId, campaignId, client);
      // Only rows still claimed are written, and the counters follow what was written, so
      // an outcome reported twice (a duplicated job, a retried transaction) counts once.
      const written = await this.ledger.writeOutcomes(accountId, campaignId, final, client);
      for (const outcome of deferred) {
        if (outcome.kind !== 'deferred' || outcome.smtpCode === undefined) continue;
        await this.ledger.noteDeferral(
          accountId,
          campaignId,
          outcome.subscriberId,
          outcome.smtpCode,
          client,
        );
      }
      const applied = final.filter((o) => written.has(o.subscriberId));
      const count = (predicate: (o: FinalOutcome) => boolean) => applied.filter(predicate).length;
      const skipped = (reason: SkipReason) =>
        count((o) => o.kind === 'skipped' && o.reason === reason);
      const sends: CampaignSend[] = [];
      for (const o of applied) {
        if (o.kind === 'skipped') continue;
        const hardBounce = o.kind === 'failed' && o.hardBounce;
        sends.push({ subscriberId: o.subscriberId, delivered: o.kind === 'delivered', hardBounce });
      }
      const bounced = await this.statistics.recordCampaignSends(accountId, sends, client);
      // A refusal at SMTP time suppresses the address like a bounce report would.
      await this.suppressions.suppressMany(client, accountId, bounced, 'hard_bounce');
      await this.campaigns.countOutcomes(
        accountId,
        campaignId,
        {
          delivered: count((o) => o.kind === 'delivered'),
          failed: count((o) => o.kind === 'failed'),
          hardBounces: count((o) => o.kind === 'failed' && o.hardBounce),
          skippedErased: skipped('erased'),
          skippedUnsubscribed: skipped('unsubscribed'),
          skippedBounced: skipped('bounced'),
          skippedComplained: skipped('complained'),
          skippedSuppressed: skipped('suppressed'),
          // A relay's temporary refusal that outlasted every retry: a soft bounce.
          softBounces: count(
            (o) => o.kind === 'failed' && !o.hardBounce && o.smtpCode !== undefined,
          ),
        },
        client,
      );
      await this.mailEvents.record(client, accountId, campaignMailEvents(campaignId, applied));
    });
  }
}
