import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal, UserPrincipal } from '../../auth/principal';
import { SignInRequiredError } from '../sessions/dashboard-errors';
import { InvitationsService } from '../access/invitations.service';
import { UsersService } from '../people/users.service';
import { CreateInvitationDto, UpdatePersonDto } from './access.dto';

/**
 * Account > People: who is in the account, their roles and removal (people/roles.ts says who
 * may do what), and the invitations to join it.
 */
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
    return { data: members.map(presentMember) };
  }

  /** 200 with the person as the list shows them. */
  @Patch('people/:id')
  async update(
    @Caller() caller: Principal,
    @Param('id') id: string,
    @Body() body: UpdatePersonDto,
  ) {
    return presentMember(await this.users.changeRole(person(caller), id, body.role));
  }

  /** 204; the person's sessions are gone with them. */
  @Delete('people/:id')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    await this.users.remove(person(caller), id);
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

function presentMember(member: {
  id: string;
  email: string;
  name: string | null;
  role: string;
  createdAt: Date;
  lastSignInAt: Date | null;
}) {
  return {
    id: member.id,
    email: member.email,
    name: member.name,
    role: member.role,
    created_at: member.createdAt.toISOString(),
    last_sign_in_at: member.lastSignInAt?.toISOString() ?? null,
  };
}

/** Every route here is under /dashboard/api, where the caller is always a signed-in person. */
function person(caller: Principal): UserPrincipal {
  if (caller.userId === undefined) throw new SignInRequiredError();
  return caller;
}
