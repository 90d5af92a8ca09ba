import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountsService } from '../../accounts/accounts.service';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import { NO_ACCOUNT, NO_ID } from '../../platform/database/nothing-ids';
import { PgPool } from '../../platform/database/pg-pool';
import { holdQueueWorkersFor } from '../../platform/queue/worker-warm-ups';
import { PrismaService } from '../../platform/database/prisma.service';
import { MailTransport } from '../../platform/mail/mail-transport';
import { DELIVERY_CONCURRENCY } from '../core/campaigns.settings';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { SuppressionList } from '../../suppression/suppression-list';
import { CampaignDeliveryRunsRepository } from '../ledger/campaign-delivery-runs.repository';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { CampaignCompletion } from '../core/campaign-completion';
import { CampaignOutcomeWriter } from './campaign-outcome-writer';
import { CampaignsRepository } from '../core/campaigns.repository';

/**
 * Runs each query of the send pipeline once, against ids that match nothing, when a worker
 * starts, and opens the database connections its delivery jobs will use at once. Prisma plans
 * a query shape on its first use and a new PostgreSQL connection costs a backend start; paying
 * either while the first campaign waits adds to its time to first message.
 */
@Injectable()
export class CampaignWorkerWarmup implements OnModuleInit {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly outcomes: CampaignOutcomeWriter,
    private readonly completion: CampaignCompletion,
    private readonly subscribers: SubscribersService,
    private readonly transport: MailTransport,
    private readonly runs: CampaignDeliveryRunsRepository,
    private readonly accounts: AccountsService,
    private readonly senderDomains: SenderDomainsService,
    private readonly suppressions: SuppressionList,
    private readonly pool: PgPool,
    private readonly prisma: PrismaService,
  ) {}

  onModuleInit(): void {
    holdQueueWorkersFor('the campaign send path', () => this.warmUp());
    // The relay's connection is opened beside it, not before the first job: a slow relay
    // must not hold the workers back.
    void this.transport.warmUp();
  }

  private async warmUp(): Promise<void> {
    // One connection per delivery job that may start at once, in both pools.
    await Promise.all(
      Array.from({ length: DELIVERY_CONCURRENCY }, () =>
        Promise.all([this.pool.query('SELECT 1'), this.prisma.$queryRaw`SELECT 1`]),
      ),
    );
    await this.campaigns.findById(NO_ACCOUNT, NO_ID);
    await this.runs.foldExpired(NO_ACCOUNT, NO_ID, 0);
    // Missing on purpose: only the query's plan is wanted.
    await this.accounts.settings(NO_ACCOUNT).catch(() => undefined);
    await this.senderDomains.signingIdentity(NO_ACCOUNT, 'warm-up@example.com');
    const run = { id: NO_ID, accountId: NO_ACCOUNT, campaignId: NO_ID, batch: 0 };
    await this.ledger.claim(run, 1);
    await this.subscribers.findRows(NO_ACCOUNT, [NO_ID]);
    await this.suppressions.suppressedAmong(NO_ACCOUNT, ['warm-up@example.com']);
    await this.outcomes.record(run, [
      { subscriberId: NO_ID, kind: 'delivered' },
      { subscriberId: NO_ID, kind: 'skipped', reason: 'erased' },
      { subscriberId: NO_ID, kind: 'deferred', smtpCode: 451 },
    ]);
    await this.ledger.nextWake(NO_ACCOUNT, NO_ID, 0);
    await this.completion.completeIfFinished(NO_ACCOUNT, NO_ID);
  }
}
