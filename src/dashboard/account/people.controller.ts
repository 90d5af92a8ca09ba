import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal, UserPrincipal } from '../../auth/principal';
import { SignInRequiredError } from '../sessions/dashboard-errors';
import { InvitationsService } from '../access/invitations.service';
import { UsersService } from '../people/users.service';
import { CreateInvitationDto } from './access.dto';

/** Account > People: who is in the account, and the owner's invitations to join it. */
@ApiExcludeController()
@Controller('dashboard/api')
export class PeopleController {
  constructor(
    private readonly users: UsersService,
    private readonly invitations: InvitationsService,
  ) {}

  @Get('people')
  async people(@Caller() caller: Principal) {
    const members = await this.users.listMembers(person(caller).accountId);
    return {
      data: members.map((member) => ({
        id: member.id,
        email: member.email,
        name: member.name,
        role: member.role,
        created_at: member.createdAt.toISOString(),
        last_sign_in_at: member.lastSignInAt?.toISOString() ?? null,
      })),
    };
  }

  @Get('invitations')
  list(@Caller() caller: Principal) {
    return this.invitations.list(person(caller));
  }

  /** 201 with the link, shown this once. */
  @Post('invitations')
  create(@Caller() caller: Principal, @Body() body: CreateInvitationDto) {
    return this.invitations.create(person(caller), body.email);
  }

  @Post('invitations/:id/revoke')
  @HttpCode(200)
  revoke(@Caller() caller: Principal, @Param('id') id: string) {
    return this.invitations.revoke(person(caller), id);
  }
}

/** Every route here is under /dashboard/api, where the caller is always a signed-in person. */
function person(caller: Principal): UserPrincipal {
  if (caller.userId === undefined) throw new SignInRequiredError();
  return caller;
}
