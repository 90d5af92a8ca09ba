import { Module } from '@nestjs/common';
import { MessageRetention } from './message-retention';
import { MessagesCoreModule } from './messages-core.module';

/** The retention sweep, in worker processes. */
@Module({
  imports: [MessagesCoreModule],
  providers: [MessageRetention],
  exports: [MessageRetention],
})
export class MessageWorkersModule {}
