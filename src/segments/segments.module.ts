import { Module } from '@nestjs/common';
import { SegmentsController } from './segments.controller';
import { SegmentsRepository } from './segments.repository';

@Module({
  controllers: [SegmentsController],
  providers: [SegmentsRepository],
  exports: [SegmentsRepository],
})
export class SegmentsModule {}
