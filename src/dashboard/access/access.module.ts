import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module';
import { MailModule } from '../../platform/mail/mail-transport';
import { PeopleModule } from '../people/people.module';
import { SessionsModule } from '../sessions/sessions.module';
import { AccessMail } from './access-mail';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';
import { PasswordResetsRepository } from './password-resets.repository';
import { PasswordResetService } from './password-reset.service';

/**
 * Getting into the dashboard without signing up: invitations to join an account and password
 * reset links. Kept apart from PeopleModule, which the operator CLI loads without mail.
 */
@Module({
  imports: [AccountsModule, PeopleModule, SessionsModule, MailModule],
  providers: [
    AccessMail,
    InvitationsRepository,
    InvitationsService,
    PasswordResetsRepository,
    PasswordResetService,
  ],
  exports: [InvitationsService, PasswordResetService],
})
export class AccessModule {}
