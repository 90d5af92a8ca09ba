import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SegmentFilterErasure } from './segment-erasure';
import { SegmentsRepository } from './segments.repository';
import { SegmentsService } from './segments.service';

@Module({
  // Erasure scrubs emails named in segment filters.
  imports: [ErasureModule],
  providers: [SegmentsRepository, SegmentsService, SegmentFilterErasure],
  exports: [SegmentsService],
})
export class SegmentsModule {}
