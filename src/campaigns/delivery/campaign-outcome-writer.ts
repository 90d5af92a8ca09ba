import { Inject, Injectable } from '@nestjs/common';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { ComposedStatement } from '../../platform/database/composed-statement';
import { PgPool } from '../../platform/database/pg-pool';
import { HeraldMetrics } from '../../platform/metrics/herald-metrics';
import { SubscriberStatistics } from '../../subscribers/subscriber-statistics.service';
import { MailEvents } from '../../stats/mail-events';
import { CampaignMessageOutcome, MessageLog } from '../../messages/message-log';
import { SuppressionList } from '../../suppression/suppression-list';
import { campaignMailEvents } from '../core/campaign-events';
import {
  CampaignDeliveryRunsRepository,
  RunIdentity,
} from '../ledger/campaign-delivery-runs.repository';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import type { FinalOutcome, Outcome } from '../ledger/recipient-outcome';

/** A row the outcome write ended, as the statement returns it. */
interface EndedRow {
  id: string;
  status: 'sent' | 'failed' | 'skipped';
  smtpCode: number | null;
  hardBounce: boolean;
}

/** The mail events a campaign's outcomes make (see campaignMailEvents). */
const SEND_EVENTS = ['sent', 'delivered', 'bounced'] as const;

/**
 * Writes the outcomes of a group of deliveries (the hot path: a connection waits for this
 * before it takes its next message) as one statement composed of each module's part: the
 * ledger rows, the recipients' statistics, the suppression of addresses that bounced, the
 * run's counters and the day's counters. One statement is atomic by itself, so there is no
 * BEGIN or COMMIT round trip; only an account with webhook endpoints for these events adds a
 * transaction around it, for the events' batch.
 *
 * Only rows the run still holds are written, and everything counted is counted from the rows
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
    private readonly metrics: HeraldMetrics,
    private readonly messageLog: MessageLog,
  ) {}

  async record(run: RunIdentity, outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const { accountId, campaignId } = run;
    const at = new Date();

    const statement = new ComposedStatement();
    const ended = this.ledger.addOutcomes(statement, run, outcomes, this.config.smtpRetry);
    const counted = this.statistics.addCampaignSends(statement, accountId, ended.sends);
    // A refusal at SMTP time suppresses the address like a bounce report would; only a
    // refusal can, so without one the part is left out.
    const refusals = outcomes.filter(
      (o) => o.kind === 'deferred' || (o.kind === 'failed' && o.smtpCode !== undefined),
    ).length;
    if (refusals > 0) {
      this.suppressions.addSuppressed(statement, accountId, counted, refusals, 'hard_bounce');
    }
    this.runs.addCounts(statement, run, ended.outcomes);
    this.mailEvents.addSendCounts(statement, accountId, at, ended.sends);
    this.messageLog.addCampaignOutcomes(
      statement,
      accountId,
      campaignId,
      ended.logged,
      loggedMessages(outcomes),
    );
    const query = statement.build(
      `
      SELECT subscriber_id::text AS id, status, smtp_code AS "smtpCode",
             hard_bounce AS "hardBounce"
        FROM ${ended.outcomes.name}`,
      { named: this.config.database.namedStatements },
    );

    const count = (rows: EndedRow[]) => {
      const { sent, failed, deferred } = countedOutcomes(outcomes, rows);
      this.metrics.message('campaign', 'sent', sent);
      this.metrics.message('campaign', 'failed', failed);
      this.metrics.message('campaign', 'deferred', deferred);
    };
    if (!(await this.mailEvents.publishesAny(accountId, [...SEND_EVENTS]))) {
      count((await this.pool.query<EndedRow>(query)).rows);
      return;
    }
    await this.pool.transaction(async (client) => {
      const { rows } = await client.query<EndedRow>(query);
      count(rows);
      // Skips make no mail event.
      const sends = rows.filter((row) => row.status !== 'skipped').map(sendOutcomeOf);
      const events = campaignMailEvents(campaignId, sends);
      await this.mailEvents.publishCounted(client, accountId, events, at);
    });
  }
}

/**
 * Ends of messages for /metrics, from the rows written like the statistics (an outcome reported
 * twice counts once); a deferral whose row failed instead (past the horizon) is a failure.
 */
function countedOutcomes(outcomes: Outcome[], rows: EndedRow[]) {
  const ended = new Set(rows.map((row) => row.id));
  return {
    sent: rows.filter((row) => row.status === 'sent').length,
    failed: rows.filter((row) => row.status === 'failed').length,
    deferred: outcomes.filter((o) => o.kind === 'deferred' && !ended.has(o.subscriberId)).length,
  };
}

/** What the message log keeps of the outcomes that are messages (see Outcome's `logged`). */
function loggedMessages(outcomes: Outcome[]): CampaignMessageOutcome[] {
  const logged: CampaignMessageOutcome[] = [];
  for (const o of outcomes) {
    if (!o.logged) continue;
    logged.push({
      subscriberId: o.subscriberId,
      recipient: o.logged.to,
      subject: o.logged.subject,
      messageId: o.logged.messageId,
      reply: o.logged.reply ?? null,
    });
  }
  return logged;
}

/** The outcome a row sent or failed ended with, as its mail events tell it. */
function sendOutcomeOf(row: EndedRow): FinalOutcome {
  if (row.status === 'sent') return { subscriberId: row.id, kind: 'delivered' };
  return {
    subscriberId: row.id,
    kind: 'failed',
    hardBounce: row.hardBounce,
    smtpCode: row.smtpCode ?? undefined,
  };
}
