import { Injectable, OnModuleInit } from '@nestjs/common';
import { SenderDomainsService } from '../domains/sender-domains.service';
import { NO_ACCOUNT, NO_ID } from '../platform/database/nothing-ids';
import { MailTransport } from '../platform/mail/mail-transport';
import { holdQueueWorkersFor } from '../platform/queue/worker-warm-ups';
import { SuppressionList } from '../suppression/suppression-list';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from './transactional-messages.repository';
import { TransactionalOutcomes } from './transactional-outcomes';
import { TRANSACTIONAL_CLAIM_LEASE_MS, TRANSACTIONAL_CONCURRENCY } from './transactional.settings';

const WARM_UP_ADDRESS = 'warm-up@example.com';

/** A claim on a message that does not exist: its outcome write updates nothing. */
const NOTHING_CLAIMED: ClaimedMessage = {
  id: NO_ID,
  accountId: NO_ACCOUNT,
  recipientHash: '',
  toAddress: WARM_UP_ADDRESS,
  fromAddress: WARM_UP_ADDRESS,
  subject: null,
  html: null,
  text: null,
  mime: null,
  attempts: 0,
  claimedAt: null,
  deferredSince: null,
};

/**
 * Sends a message that does not exist through the send path when a worker starts: the claim,
 * the suppression read, the signing identity and the outcome write each run once, against ids
 * that match nothing. Their first use costs far more than any later one (Prisma compiles each
 * query shape, each connection prepares the named statements), and a cold worker paid it with
 * its first messages: every transactional message that came in meanwhile waited behind them.
 */
@Injectable()
export class TransactionalWorkerWarmup implements OnModuleInit {
  constructor(
    private readonly messages: TransactionalMessagesRepository,
    private readonly outcomes: TransactionalOutcomes,
    private readonly suppressions: SuppressionList,
    private readonly senderDomains: SenderDomainsService,
    private readonly transport: MailTransport,
  ) {}

  onModuleInit(): void {
    holdQueueWorkersFor('the transactional send path', () => this.warmUp());
    // The relay's connection is opened beside it, not before the first job: a slow relay
    // must not hold the workers back.
    void this.transport.warmUp();
  }

  private async warmUp(): Promise<void> {
    // As many at once as the worker runs jobs, so each job's connection is one of those the
    // warm-up opened and prepared.
    await Promise.all(Array.from({ length: TRANSACTIONAL_CONCURRENCY }, () => this.sendNothing()));
  }

  private async sendNothing(): Promise<void> {
    await this.messages.claim(NO_ACCOUNT, NO_ID, TRANSACTIONAL_CLAIM_LEASE_MS);
    await this.suppressions.listedReason(NO_ACCOUNT, WARM_UP_ADDRESS);
    await this.senderDomains.signingIdentity(NO_ACCOUNT, WARM_UP_ADDRESS);
    await this.outcomes.sent(NOTHING_CLAIMED, NO_ID, WARM_UP_ADDRESS);
  }
}
