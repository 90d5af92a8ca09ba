import { Injectable, OnModuleInit } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../../erasure/erasure-participant';
import type { Db } from '../../platform/database/db';
import { MailTransport } from '../../platform/mail/mail-transport';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { CampaignsRepository } from './campaigns.repository';

/**
 * What erasure means for campaigns. The ledger holds ids and outcomes only (no address, no
 * server reply text), so the person's rows stay as anonymous history; but a row still
 * pending becomes `skipped` (erased) in the erasing transaction itself, so no worker claims
 * it afterwards, and the campaign counters move with it. Stored copies of the person's
 * messages (outbox mode keeps them per subscriber id) are deleted after commit.
 */
@Injectable()
export class CampaignErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'campaigns';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly transport: MailTransport,
    private readonly ledger: CampaignLedgerRepository,
    private readonly campaigns: CampaignsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    const { accountId, subscriberId } = identity;
    if (!subscriberId) return;
    // Ledger rows first, then campaign rows in id order (the skipped counts come in that order).
    const skipped = await this.ledger.skipErased(accountId, subscriberId, tx);
    await this.campaigns.countErasedSkips(
      accountId,
      skipped.map((row) => row.campaign_id),
      skipped.map((row) => row.count),
      tx,
    );
  }

  async afterCommit(identity: Omit<ErasedIdentityRef, 'emailNormalized'>): Promise<void> {
    if (!identity.subscriberId) return;
    await rm(this.transport.storageFolder(identity.subscriberId), { recursive: true, force: true });
  }
}
