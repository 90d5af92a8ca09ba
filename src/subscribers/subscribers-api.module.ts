import { Module } from '@nestjs/common';
import { SubscriberBatches } from './subscriber-batches';
import { SubscribersDashboardController } from './subscribers-dashboard.controller';
import { SubscribersController } from './subscribers.controller';
import { SubscribersModule } from './subscribers.module';

/** The HTTP surface: /v1/subscribers and the dashboard's subscriber pages. API processes only, so a worker never loads its controllers. */
@Module({
  imports: [SubscribersModule],
  controllers: [SubscribersController, SubscribersDashboardController],
  providers: [SubscriberBatches],
})
export class SubscribersApiModule {}
