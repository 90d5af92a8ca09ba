import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { accountIdOfRow } from '../platform/database/account-id';
import { MailTransport } from '../platform/mail/mail-transport';
import { SubscribersService } from '../subscribers/subscribers.service';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { CampaignCompletion } from './campaign-completion';
import { CampaignOutcomeWriter } from './campaign-outcome-writer';
import { CampaignsRepository } from './campaigns.repository';

const NO_ID = '00000000-0000-0000-0000-000000000000';
/** An account that cannot exist: every statement below matches nothing. */
const NO_ACCOUNT = accountIdOfRow(NO_ID);

/**
 * Runs each hot query of the send pipeline once, against ids that match nothing, when a
 * worker starts. Prisma plans a query shape on its first use, and doing that while the first
 * campaign waits costs hundreds of milliseconds of its time to first message.
 */
@Injectable()
export class CampaignWorkerWarmup implements OnApplicationBootstrap {
  private readonly logger = new Logger(CampaignWorkerWarmup.name);

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly outcomes: CampaignOutcomeWriter,
    private readonly completion: CampaignCompletion,
    private readonly subscribers: SubscribersService,
    private readonly transport: MailTransport,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.campaigns.findById(NO_ACCOUNT, NO_ID);
      const run = { id: NO_ID, accountId: NO_ACCOUNT, campaignId: NO_ID, batch: 0 };
      await this.ledger.claim(run, 1);
      await this.subscribers.findRows(NO_ACCOUNT, [NO_ID]);
      await this.outcomes.record(run, [
        { subscriberId: NO_ID, kind: 'delivered' },
        { subscriberId: NO_ID, kind: 'skipped', reason: 'erased' },
        { subscriberId: NO_ID, kind: 'deferred', smtpCode: 451 },
      ]);
      await this.completion.completeIfFinished(NO_ACCOUNT, NO_ID);
      await this.transport.warmUp();
    } catch (error) {
      // Only an optimisation: a worker that cannot warm up still works.
      this.logger.warn(`warm-up skipped: ${String(error)}`);
    }
  }
}
