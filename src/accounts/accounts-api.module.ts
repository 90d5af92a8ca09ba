import { Module } from '@nestjs/common';
import { AccountSettingsDashboardController } from './account-settings-dashboard.controller';
import { AccountsModule } from './accounts.module';

/** The HTTP surface: the dashboard's account settings. API processes only, so a worker never loads its controllers. */
@Module({
  imports: [AccountsModule],
  controllers: [AccountSettingsDashboardController],
})
export class AccountsApiModule {}
