import { Module } from '@nestjs/common';
import { SegmentsDashboardController } from './segments-dashboard.controller';
import { SegmentsController } from './segments.controller';
import { SegmentsModule } from './segments.module';

/** The HTTP surface: /v1/segments and the dashboard's segment pages. API processes only, so a worker never loads its controllers. */
@Module({
  imports: [SegmentsModule],
  controllers: [SegmentsController, SegmentsDashboardController],
})
export class SegmentsApiModule {}
