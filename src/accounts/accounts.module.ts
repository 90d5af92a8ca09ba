import { Module } from '@nestjs/common';
import { AccountSettingsDashboardController } from './account-settings-dashboard.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

@Module({
  controllers: [AccountSettingsDashboardController],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
