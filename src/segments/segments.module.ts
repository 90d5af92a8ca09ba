import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SegmentFilterErasure } from './segment-erasure';
import { SegmentsDashboardController } from './segments-dashboard.controller';
import { SegmentsController } from './segments.controller';
import { SegmentsRepository } from './segments.repository';
import { SegmentsService } from './segments.service';

@Module({
  // Erasure scrubs emails named in segment filters.
  imports: [ErasureModule],
  controllers: [SegmentsController, SegmentsDashboardController],
  providers: [SegmentsRepository, SegmentsService, SegmentFilterErasure],
  exports: [SegmentsService],
})
export class SegmentsModule {}
