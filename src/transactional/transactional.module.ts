import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { MessagesCoreModule } from '../messages/messages-core.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { ErasureModule } from '../erasure/erasure.module';
import { MailModule } from '../platform/mail/mail-transport';
import { QUEUES } from '../platform/queue/queue.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { TemplatesModule } from '../templates/templates.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { StatsCoreModule } from '../stats/stats-core.module';
import { VerpModule } from '../message-refs/verp.module';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotentRequests } from './idempotent-requests';
import { TransactionalContent } from './transactional-content';
import { TransactionalEvents } from './transactional-events';
import { TransactionalErasureParticipant } from './transactional-erasure.participant';
import { TransactionalMessagesRepository } from './transactional-messages.repository';
import { TransactionalOutcomes } from './transactional-outcomes';
import { TransactionalQueue } from './transactional-queue';
import { TransactionalSentMessages } from './transactional-sent-messages';
import { TransactionalSendProcessor } from './transactional-send.processor';
import { TransactionalSweeper } from './transactional-sweeper';
import { TransactionalWorkerWarmup } from './transactional-worker-warmup';
import { TransactionalService } from './transactional.service';

/**
 * The data layer and the queue, shared by the API and the workers. Subscribers are read (a
 * template's merge fields) and counted (sends and bounces) through their module's services.
 */
@Module({
  imports: [
    BullModule.registerQueue({ name: QUEUES.transactional }),
    MessagesCoreModule,
    StatsCoreModule,
    SubscribersModule,
    SuppressionCoreModule,
  ],
  providers: [
    TransactionalEvents,
    TransactionalMessagesRepository,
    IdempotencyKeysRepository,
    IdempotentRequests,
    TransactionalOutcomes,
    TransactionalQueue,
    TransactionalSentMessages,
  ],
  exports: [
    IdempotentRequests,
    TransactionalMessagesRepository,
    IdempotencyKeysRepository,
    TransactionalOutcomes,
    TransactionalQueue,
    TransactionalSentMessages,
    SubscribersModule,
    MessagesCoreModule,
  ],
})
export class TransactionalCoreModule {}

/** The API side: POST /v1/transactional/send, GET /v1/transactional/{id}, erasure. */
@Module({
  imports: [
    TransactionalCoreModule,
    ErasureModule,
    TemplatesModule,
    MailModule,
    SuppressionCoreModule,
    SenderDomainsCoreModule,
  ],
  providers: [TransactionalService, TransactionalContent, TransactionalErasureParticipant],
  exports: [TransactionalService],
})
export class TransactionalModule {}

/** The worker side: the send processor and the recovery sweep. */
@Module({
  imports: [
    TransactionalCoreModule,
    MailModule,
    SenderDomainsCoreModule,
    SuppressionCoreModule,
    VerpModule,
  ],
  providers: [TransactionalSendProcessor, TransactionalSweeper, TransactionalWorkerWarmup],
})
export class TransactionalWorkerModule {}
