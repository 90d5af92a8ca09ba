import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { MessagesController } from './messages.controller';
import { MessagesCoreModule } from './messages-core.module';
import { MessagesService } from './messages.service';

/** GET /v1/messages and /v1/messages/{id}. */
@Module({
  imports: [MessagesCoreModule, ErasureModule],
  controllers: [MessagesController],
  providers: [MessagesService],
})
export class MessagesApiModule {}
