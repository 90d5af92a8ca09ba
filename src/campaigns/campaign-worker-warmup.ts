import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { MailTransport } from '../platform/mail/mail-transport';
import { CampaignLedgerRepository } from './campaign-ledger.repository';

const NO_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Runs each hot query of the send pipeline once, against ids that match nothing, when a
 * worker starts. Prisma plans a query shape on its first use, and doing that while the first
 * campaign waits costs hundreds of milliseconds of its time to first message.
 */
@Injectable()
export class CampaignWorkerWarmup implements OnApplicationBootstrap {
  private readonly logger = new Logger(CampaignWorkerWarmup.name);

  constructor(
    private readonly ledger: CampaignLedgerRepository,
    private readonly transport: MailTransport,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.ledger.findCampaign(NO_ID, NO_ID);
      await this.ledger.claim(NO_ID, NO_ID, 0, 1);
      await this.ledger.subscribers(NO_ID, [NO_ID]);
      await this.ledger.releaseClaims(NO_ID, NO_ID, 0);
      await this.ledger.record(NO_ID, NO_ID, [
        { subscriberId: NO_ID, kind: 'delivered' },
        { subscriberId: NO_ID, kind: 'skipped', reason: 'erased' },
      ]);
      await this.ledger.completeIfFinished(NO_ID, NO_ID);
      await this.transport.warmUp();
    } catch (error) {
      // Only an optimisation: a worker that cannot warm up still works.
      this.logger.warn(`warm-up skipped: ${String(error)}`);
    }
  }
}
