import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { MessagesCoreModule } from '../messages/messages-core.module';
import { WebhooksCoreModule } from '../webhooks/webhooks-core.module';
import { MailEventSubjects } from './mail-event-subjects';
import { MailEvents } from './mail-events';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

/**
 * The statistics' data layer and MailEvents, the path every mail event takes (counters and
 * outbound events). Imported by every module where such events happen; it imports none of
 * them (what payloads need of them comes through MailEventSubjects).
 */
@Module({
  imports: [ErasureModule, WebhooksCoreModule, MessagesCoreModule],
  providers: [StatsRepository, StatsService, MailEvents, MailEventSubjects],
  exports: [StatsService, MailEvents, MailEventSubjects, WebhooksCoreModule],
})
export class StatsCoreModule {}
