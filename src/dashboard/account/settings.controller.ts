import { Body, Controller, Get, Patch, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { AccountsService } from '../../accounts/accounts.service';
import { SessionGuard } from '../sessions/session.guard';
import { actingAs, DashboardUser, SignedIn } from '../sessions/signed-in';

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
@UseGuards(SessionGuard)
@Controller('dashboard/api/account/settings')
export class AccountSettingsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  get(@SignedIn() user: DashboardUser) {
    return this.accounts.settings(user.accountId);
  }

  @Patch()
  update(@SignedIn() user: DashboardUser, @Body() body: UpdateAccountSettingsDto) {
    return this.accounts.updatePostalAddress(actingAs(user), body.postal_address);
  }
}
