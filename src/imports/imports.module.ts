import { Module } from '@nestjs/common';
import { FileStoreModule } from '../platform/storage/file-store';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { ImportProcessor } from './import.processor';
import { ImportQueuesModule } from './import-queue';
import { ImportRunner } from './import-runner';
import { ImportWatchdog } from './import-watchdog';
import { ImportsRepository } from './imports.repository';

/** The workers that run imports, and their watchdog. */
@Module({
  imports: [FileStoreModule, ImportQueuesModule, SubscribersModule],
  providers: [ImportsRepository, ImportRunner, ImportProcessor, ImportWatchdog],
})
export class ImportWorkersModule {}
