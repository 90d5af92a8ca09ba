import { Module } from '@nestjs/common';
import { FileStoreModule } from '../platform/storage/file-store';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { ImportProcessor } from './import.processor';
import { ImportQueuesModule } from './import-queue';
import { ImportRunner } from './import-runner';
import { ImportWatchdog } from './import-watchdog';
import { ImportsDashboardController } from './imports-dashboard.controller';
import { ImportsController } from './imports.controller';
import { ImportsRepository } from './imports.repository';
import { ImportsService } from './imports.service';

/** /v1/imports and the dashboard's import page: uploads, progress, row errors. */
@Module({
  imports: [FileStoreModule, ImportQueuesModule],
  controllers: [ImportsController, ImportsDashboardController],
  providers: [ImportsRepository, ImportsService],
})
export class ImportsModule {}

/** The workers that run imports, and their watchdog. */
@Module({
  imports: [FileStoreModule, ImportQueuesModule, SubscribersModule],
  providers: [ImportsRepository, ImportRunner, ImportProcessor, ImportWatchdog],
})
export class ImportWorkersModule {}
