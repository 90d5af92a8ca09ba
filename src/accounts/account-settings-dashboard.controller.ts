import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { Caller, Principal } from '../auth/principal';
import { AccountsService } from './accounts.service';

export class UpdateAccountSettingsDto {
  /** Several lines are fine; the footer shows them on one line, comma-separated. */
  @IsDefined()
  @IsString()
  @MaxLength(500)
  postal_address!: string;
}

/**
 * The account's settings in the dashboard: for now the postal address that campaign footers
 * show (the dashboard asks for it before an account's first campaign send).
 */
@ApiExcludeController()
@Controller('dashboard/api/account/settings')
export class AccountSettingsDashboardController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  get(@Caller() caller: Principal) {
    return this.accounts.settings(caller.accountId);
  }

  @Patch()
  update(@Caller() caller: Principal, @Body() body: UpdateAccountSettingsDto) {
    return this.accounts.updatePostalAddress(caller, body.postal_address);
  }
}
