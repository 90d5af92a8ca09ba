import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** Dashboard people without HTTP: shared by the dashboard API and the operator CLI. */
@Module({
  imports: [AccountsModule],
  providers: [UsersRepository, UsersService],
  exports: [UsersService],
})
export class PeopleModule {}
