import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SubscriberSearchRepository } from './subscriber-search.repository';
import { SubscribersDashboardController } from './subscribers-dashboard.controller';
import { SubscribersController } from './subscribers.controller';
import { SubscribersRepository } from './subscribers.repository';
import { SubscribersService } from './subscribers.service';

@Module({
  imports: [ErasureModule],
  controllers: [SubscribersController, SubscribersDashboardController],
  providers: [SubscribersRepository, SubscriberSearchRepository, SubscribersService],
  exports: [SubscribersRepository, SubscribersService],
})
export class SubscribersModule {}
