import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { SuppressionCoreModule } from './suppression-core.module';
import { SuppressionErasureParticipant } from './suppression-erasure.participant';
import { SuppressionsController } from './suppressions.controller';
import { SuppressionsService } from './suppressions.service';

/** /v1/suppressions, and the suppression list's part in erasure. */
@Module({
  imports: [SuppressionCoreModule, SubscribersModule, ErasureModule],
  controllers: [SuppressionsController],
  providers: [SuppressionsService, SuppressionErasureParticipant],
  exports: [SuppressionsService],
})
export class SuppressionModule {}
