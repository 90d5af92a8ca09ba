import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { SubscribersController } from './subscribers.controller';
import { SubscribersRepository } from './subscribers.repository';
import { SubscribersService } from './subscribers.service';

@Module({
  imports: [ErasureModule, SuppressionCoreModule],
  controllers: [SubscribersController],
  providers: [SubscribersRepository, SubscribersService],
  exports: [SubscribersRepository, SubscribersService],
})
export class SubscribersModule {}
