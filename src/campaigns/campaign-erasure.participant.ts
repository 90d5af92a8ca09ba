import { Injectable, OnModuleInit } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import { Prisma } from '../generated/prisma/client';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import { MailTransport } from '../platform/mail/mail-transport';

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
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Prisma.TransactionClient, identity: ErasedIdentityRef): Promise<void> {
    if (!identity.subscriberId) return;
    const skipped = await tx.$queryRaw<{ campaign_id: string; count: number }[]>`
      WITH skipped AS (
        UPDATE campaign_recipients SET status = 'skipped', skip_reason = 'erased'
         WHERE account_id = ${identity.accountId}::uuid
           AND subscriber_id = ${identity.subscriberId}::uuid AND status = 'pending'
        RETURNING campaign_id
      )
      SELECT campaign_id::text, count(*)::int AS count FROM skipped
       GROUP BY campaign_id ORDER BY campaign_id`;
    if (skipped.length === 0) return;
    const ids = skipped.map((row) => row.campaign_id);
    const counts = skipped.map((row) => row.count);
    // Campaign rows in id order, the same order the delivery workers' writes take.
    await tx.$queryRaw`SELECT 1 FROM campaigns WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`;
    await tx.$executeRaw`
      UPDATE campaigns c
         SET recipient_count = c.recipient_count - v.n,
             skipped_erased_count = c.skipped_erased_count + v.n,
             progress_at = now()
        FROM unnest(${ids}::uuid[], ${counts}::int[]) AS v(id, n)
       WHERE c.id = v.id AND c.account_id = ${identity.accountId}::uuid`;
  }

  async afterCommit(identity: Omit<ErasedIdentityRef, 'emailNormalized'>): Promise<void> {
    if (!identity.subscriberId) return;
    await rm(this.transport.storageFolder(identity.subscriberId), { recursive: true, force: true });
  }
}
