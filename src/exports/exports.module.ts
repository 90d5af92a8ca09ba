import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { FileStoreModule } from '../platform/storage/file-store';
import { SegmentsModule } from '../segments/segments.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { ExportErasureParticipant } from './export-erasure.participant';
import { ExportProcessor } from './export.processor';
import { ExportQueuesModule } from './export-queue';
import { ExportRunner } from './export-runner';
import { ExportWatchdog } from './export-watchdog';
import { ExportsController } from './exports.controller';
import { ExportsRepository } from './exports.repository';
import { ExportsService } from './exports.service';

/** /v1/exports: start, progress, download; and the exports' part in erasure. */
@Module({
  imports: [FileStoreModule, ExportQueuesModule, SegmentsModule, ErasureModule],
  controllers: [ExportsController],
  providers: [ExportsRepository, ExportsService, ExportErasureParticipant],
})
export class ExportsModule {}

/** The workers that write exports, and their watchdog. */
@Module({
  imports: [FileStoreModule, ExportQueuesModule, SubscribersModule, SegmentsModule, ErasureModule],
  providers: [ExportsRepository, ExportRunner, ExportProcessor, ExportWatchdog],
})
export class ExportWorkersModule {}
