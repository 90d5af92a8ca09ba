import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEventBatchesRepository } from './webhook-event-batches.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookErasureParticipant } from './webhook-erasure.participant';
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
export class WebhooksApiModule {}
