import { Module } from '@nestjs/common';
import { FileStoreModule } from '../platform/storage/file-store';
import { ImportQueuesModule } from './import-queue';
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
export class ImportsApiModule {}
