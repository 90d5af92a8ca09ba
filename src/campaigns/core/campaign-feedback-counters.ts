import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { CampaignsRepository } from './campaigns.repository';
import type { FeedbackKind } from '../../message-refs/feedback-report';

/**
 * How the feedback loop counts what receivers report after a send (bounces, complaints,
 * unsubscribes) on the campaign: inside the transaction that records the report, so a
 * counter never disagrees with the feedback ledger.
 */
@Injectable()
export class CampaignFeedbackCounters {
  constructor(private readonly campaigns: CampaignsRepository) {}

  count(accountId: AccountId, campaignId: string, kind: FeedbackKind, tx: Db): Promise<void> {
    return this.campaigns.countFeedback(accountId, campaignId, kind, tx);
  }
}
