import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { MessageLog } from './message-log';
import { MessagesErasureParticipant } from './messages-erasure.participant';
import { MessagesRepository } from './messages.repository';

/**
 * The message log's data and MessageLog, the way senders put messages and events in. Imported
 * by every module that sends or hears about mail; it imports none of them.
 */
@Module({
  imports: [ErasureModule],
  providers: [MessagesRepository, MessageLog, MessagesErasureParticipant],
  // The repository only for this folder's other modules; other modules use MessageLog.
  exports: [MessageLog, MessagesRepository],
})
export class MessagesCoreModule {}
