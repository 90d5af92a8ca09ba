import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import type { Db } from '../platform/database/db';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEventBatchesRepository } from './webhook-event-batches.repository';
import { WebhookPublisher } from './webhook-publisher';

/**
 * What erasure means for webhooks: every stored payload about the person (their address, the
 * subscriber object), in delivery rows and in events not yet attempted, is deleted, so
 * deliveries not yet made are never made; and
 * `subscriber.erased` goes out, carrying only the keyed hash of the address, so the account's
 * own systems can erase the person too. Both in the erasing transaction.
 */
@Injectable()
export class WebhookErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'webhooks';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly batches: WebhookEventBatchesRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly publisher: WebhookPublisher,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    const { accountId, subscriberId, emailHash } = identity;
    // Batches first: the dispatcher's result writer locks them before delivery rows too.
    await this.batches.scrub(tx, accountId, subscriberId ?? null, emailHash);
    await this.deliveries.scrub(tx, accountId, subscriberId ?? null, emailHash);
    await this.publisher.publish(tx, accountId, [
      {
        type: 'subscriber.erased',
        occurredAt: new Date(),
        data: { email_hash: emailHash, subscriber_id: subscriberId ?? null },
      },
    ]);
  }
}
