import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { StatsCoreModule } from '../stats/stats-core.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { SubscriberCounts } from './subscriber-counts';
import { SubscriberEventSubjects } from './subscriber-event-subjects';
import { SubscriberBulkWriter } from './subscriber-bulk-writer';
import { SubscriberErasure } from './subscriber-erasure';
import { SubscriberSearchRepository } from './subscriber-search.repository';
import { SubscriberStatisticsRepository } from './subscriber-statistics.repository';
import { SubscriberStatistics } from './subscriber-statistics.service';
import { SubscribersRepository } from './subscribers.repository';
import { SubscribersService } from './subscribers.service';

@Module({
  imports: [ErasureModule, StatsCoreModule, SuppressionCoreModule],
  providers: [
    SubscribersRepository,
    SubscriberSearchRepository,
    SubscriberStatisticsRepository,
    SubscribersService,
    SubscriberStatistics,
    SubscriberErasure,
    SubscriberCounts,
    SubscriberEventSubjects,
    SubscriberBulkWriter,
  ],
  // Other modules read and count through these services, never the repositories.
  exports: [SubscribersService, SubscriberStatistics, SubscriberCounts, SubscriberBulkWriter],
})
export class SubscribersModule {}
