import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '../platform/queue/queue.module';
import { ErasureModule } from '../erasure/erasure.module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEventBatchesRepository } from './webhook-event-batches.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookErasureParticipant } from './webhook-erasure.participant';
import { WebhookSender } from './webhook-sender';
import { WebhooksController } from './webhooks.controller';
import { WebhooksCoreModule } from './webhooks-core.module';
import { WebhooksService } from './webhooks.service';

/** /v1/webhooks and the dashboard's Webhooks page; erasure of the person's deliveries. */
@Module({
  imports: [WebhooksCoreModule, ErasureModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookEventBatchesRepository,
    WebhookErasureParticipant,
  ],
})
export class WebhooksModule {}

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
