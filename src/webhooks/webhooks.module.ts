import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '../platform/queue/queue.module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEventBatchesRepository } from './webhook-event-batches.repository';
import { WebhookSender } from './webhook-sender';
import { WebhooksCoreModule } from './webhooks-core.module';

/** The dispatcher that makes deliveries: only in processes that run workers. */
@Module({
  imports: [WebhooksCoreModule, BullModule.registerQueue({ name: QUEUES.campaignDelivery })],
  providers: [
    WebhookDispatcher,
    WebhookDeliveriesRepository,
    WebhookEventBatchesRepository,
    WebhookSender,
  ],
})
export class WebhookWorkersModule {}
