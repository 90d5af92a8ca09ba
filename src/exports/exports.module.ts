import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { FileStoreModule } from '../platform/storage/file-store';
import { SegmentsModule } from '../segments/segments.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { ExportProcessor } from './export.processor';
import { ExportQueuesModule } from './export-queue';
import { ExportRunner } from './export-runner';
import { ExportWatchdog } from './export-watchdog';
import { ExportsRepository } from './exports.repository';

/** The workers that write exports, and their watchdog. */
@Module({
  imports: [FileStoreModule, ExportQueuesModule, SubscribersModule, SegmentsModule, ErasureModule],
  providers: [ExportsRepository, ExportRunner, ExportProcessor, ExportWatchdog],
})
export class ExportWorkersModule {}
