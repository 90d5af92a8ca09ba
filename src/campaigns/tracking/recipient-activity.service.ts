import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../platform/database/prisma.service';
import { isMachineActivity } from '../../stats/machine-activity';
import { MailEvents } from '../../stats/mail-events';
import { SubscriberStatistics } from '../../subscribers/subscriber-statistics.service';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import type { ActivityKind } from '../ledger/campaign-ledger.sql';
import { CampaignSentMessages } from '../ledger/campaign-sent-messages';
import { CampaignsRepository } from '../core/campaigns.repository';
import { RecipientRef } from '../../message-refs/recipient-token';
import { RepeatedHits } from './repeated-hits';

/** What the tracking request says about who made it. */
export interface ActivitySource {
  userAgent?: string;
}

/**
 * What recipients do with a campaign message: unsubscribe, open, click. Each is one event
 * from one person, so it is written when it happens. Subscriber statistics count every event;
 * the campaign counts each recipient's first open and first click by a person (the ledger
 * remembers it), machine ones (privacy proxies, link scanners) apart, through MailEvents.
 * A repeat of an open of one message, or of a click of one link in it, within
 * REPEAT_HIT_WINDOW_SECONDS of the first is not an event at all (RepeatedHits).
 */
@Injectable()
export class RecipientActivityService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly subscribers: SubscribersService,
    private readonly statistics: SubscriberStatistics,
    private readonly ledger: CampaignLedgerRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly sent: CampaignSentMessages,
    private readonly mailEvents: MailEvents,
    private readonly repeats: RepeatedHits,
  ) {}

  /** Idempotent; a subscriber erased meanwhile simply matches nothing. */
  unsubscribe(ref: RecipientRef): Promise<void> {
    return this.subscribers.unsubscribe(ref.accountId, ref.subscriberId);
  }

  recordOpen(ref: RecipientRef & { campaignId: string }, source: ActivitySource = {}) {
    return this.record('open', ref, source);
  }

  recordClick(
    ref: RecipientRef & { campaignId: string },
    url: string,
    source: ActivitySource = {},
  ) {
    return this.record('click', ref, source, url);
  }

  /**
   * Counts the event on the subscriber, on the campaign the first time a person does it, and
   * through MailEvents, in one transaction. Locks go subscriber, ledger row, campaign, stats.
   * A repeat within the window returns before the transaction: it writes and publishes nothing.
   */
  private async record(
    kind: ActivityKind,
    ref: RecipientRef & { campaignId: string },
    source: ActivitySource,
    url?: string,
  ) {
    const { accountId, subscriberId, campaignId } = ref;
    const subject = { accountId, campaignId, subscriberId, url };
    if (!(await this.repeats.first(kind, subject))) return;
    await this.write(kind, ref, source, url).catch(async (error: unknown) => {
      await this.repeats.forget(kind, subject);
      throw error;
    });
  }

  private async write(
    kind: ActivityKind,
    ref: RecipientRef & { campaignId: string },
    source: ActivitySource,
    url?: string,
  ) {
    const { accountId, subscriberId, campaignId } = ref;
    await this.prisma.$transaction(async (tx) => {
      if (!(await this.statistics.recordEngagement(accountId, subscriberId, kind, tx))) return;
      const message = await this.sent.find(campaignId, subscriberId, tx);
      if (!message || message.accountId !== accountId) return;
      const machine = isMachineActivity(source.userAgent, message.sentAt);
      let unique = false;
      if (
        !machine &&
        (await this.ledger.markFirstActivity(accountId, campaignId, subscriberId, kind, tx))
      ) {
        await this.campaigns.countFirstActivity(accountId, campaignId, kind, tx);
        unique = true;
      }
      const ids = { campaignId, subscriberId };
      await this.mailEvents.record(tx, accountId, [
        kind === 'open'
          ? { kind: 'opened', message: ids, machine, unique }
          : { kind: 'clicked', message: ids, url: url ?? '', machine, unique },
      ]);
    });
  }
}
