import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { runSql } from '../../platform/database/sql-runner';
import type { MailEvent } from '../../stats/mail-events';
import { MailEventSubjects } from '../../stats/mail-event-subjects';
import { WebhookPublisher } from '../../webhooks/webhook-publisher';
import * as sql from './campaign-events.sql';
import type { FinalOutcome } from '../ledger/recipient-outcome';

/**
 * What campaigns tell the outside: `campaign.sending`, `campaign.sent` and `campaign.paused`, and the mail events of
 * a chunk of recorded outcomes (turned into MailEvents' terms here, so the outcome writer makes
 * one call). Also provides MailEvents with a campaign's name and From.
 */
@Injectable()
export class CampaignEvents implements OnModuleInit {
  private readonly logger = new Logger(CampaignEvents.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly publisher: WebhookPublisher,
    private readonly subjects: MailEventSubjects,
  ) {}

  onModuleInit(): void {
    this.subjects.provide({
      campaign: async (db, accountId, id) => {
        const [row] = await runSql<{ name: string; from_address: string }>(
          db,
          sql.CAMPAIGN_SUBJECT,
          [accountId, id],
        );
        return row ? { name: row.name, fromAddress: row.from_address } : null;
      },
    });
  }

  /**
   * After the campaign's status changed (the send claimed it, the last recipient finished). Not
   * in the transaction that changed it: a crash between the two loses this one event, never
   * the send; a failure here is logged, never the send's.
   */
  async statusChanged(
    accountId: AccountId,
    id: string,
    type: 'campaign.sending' | 'campaign.sent' | 'campaign.paused',
  ) {
    try {
      if (!(await this.publisher.wants(accountId, type))) return;
      const [row] = await runSql<{
        id: string;
        name: string;
        status: string;
        paused_reason: string | null;
      }>(this.prisma, sql.CAMPAIGN_EVENT_DATA, [accountId, id]);
      if (!row) return;
      // A pause says why: the guard's reason, or null when a person paused the campaign.
      const data: Record<string, unknown> = { id: row.id, name: row.name, status: row.status };
      if (type === 'campaign.paused') data.paused_reason = row.paused_reason;
      await this.publisher.publish(this.prisma, accountId, [
        { type, occurredAt: new Date(), data },
      ]);
    } catch (error) {
      this.logger.error(`campaign ${id}: publishing ${type} failed: ${String(error)}`);
    }
  }
}

/**
 * The mail events of recorded outcomes: a relay's final answer is `sent`, a 250 `delivered`,
 * a refusal a bounce (hard for 5xx, soft for a 4xx that outlasted the retries). A message that
 * could not be built never left: no event. Skips are not mail.
 */
export function campaignMailEvents(campaignId: string, outcomes: FinalOutcome[]): MailEvent[] {
  const events: MailEvent[] = [];
  for (const outcome of outcomes) {
    const message = { campaignId, subscriberId: outcome.subscriberId };
    if (outcome.kind === 'delivered') {
      events.push({ kind: 'sent', message }, { kind: 'delivered', message });
    } else if (outcome.kind === 'failed' && outcome.smtpCode !== undefined) {
      events.push(
        { kind: 'sent', message },
        {
          kind: 'bounced',
          message,
          hard: outcome.hardBounce,
          source: 'smtp',
          statusCode: String(outcome.smtpCode),
        },
      );
    }
  }
  return events;
}
