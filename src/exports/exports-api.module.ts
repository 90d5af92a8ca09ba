import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { FileStoreModule } from '../platform/storage/file-store';
import { SegmentsModule } from '../segments/segments.module';
import { ExportErasureParticipant } from './export-erasure.participant';
import { ExportQueuesModule } from './export-queue';
import { ExportsController } from './exports.controller';
import { ExportsRepository } from './exports.repository';
import { ExportsService } from './exports.service';

/** /v1/exports: start, progress, download; and the exports' part in erasure. */
@Module({
  imports: [FileStoreModule, ExportQueuesModule, SegmentsModule, ErasureModule],
  controllers: [ExportsController],
  providers: [ExportsRepository, ExportsService, ExportErasureParticipant],
})
export class ExportsApiModule {}
