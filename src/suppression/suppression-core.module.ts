import { Module } from '@nestjs/common';
import { SuppressionList } from './suppression-list';
import { SuppressionsRepository } from './suppressions.repository';

/**
 * The suppression list's data and its checks, with no dependency on other domains: imported
 * by subscribers, transactional mail, campaigns and the feedback loop.
 */
@Module({
  providers: [SuppressionsRepository, SuppressionList],
  // The repository only for the suppression module; other modules use SuppressionList.
  exports: [SuppressionList, SuppressionsRepository],
})
export class SuppressionCoreModule {}
