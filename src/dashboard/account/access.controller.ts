import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from '../../accounts/accounts.service';
import { InvitationsService } from '../access/invitations.service';
import { PasswordResetService } from '../access/password-reset.service';
import { LoginThrottle } from '../sessions/login-throttle';
import { SignedOutAllowed } from '../sessions/signed-in';
import {
  AcceptInvitationDto,
  LinkTokenDto,
  PasswordResetCompleteDto,
  PasswordResetRequestDto,
} from './access.dto';
import { SessionIssuer, SessionView } from './session-issuer';

/** One answer to every reset request, whether or not the email has an account. */
export const RESET_REQUESTED = {
  message:
    'If a Herald account signs in with this email, a link to set a new password is on its way. The link works once, within one hour.',
};

/**
 * The ways back in without a password: joining by an invitation link, and a password reset
 * by an emailed link. Tokens travel in bodies, never in URLs, so no log holds them.
 */
@ApiExcludeController()
@Controller('dashboard/api')
export class AccessController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly resets: PasswordResetService,
    private readonly accounts: AccountsService,
    private readonly throttle: LoginThrottle,
    private readonly issuer: SessionIssuer,
  ) {}

  /** Whom the invitation is for and to which account, for the join page. */
  @Post('invitations/inspect')
  @HttpCode(200)
  @SignedOutAllowed()
  async inspect(@Body() body: LinkTokenDto, @Req() request: FastifyRequest) {
    await this.throttle.countLinkUse(request.ip);
    return this.invitations.inspect(body.token);
  }

  /** Joins the inviting account and signs the new member in. */
  @Post('invitations/accept')
  @SignedOutAllowed()
  async accept(
    @Body() body: AcceptInvitationDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionView> {
    await this.throttle.countLinkUse(request.ip);
    const user = await this.invitations.accept(body.token, {
      name: body.name,
      password: body.password,
    });
    return this.issuer.start(user, await this.accounts.name(user.accountId), request, reply);
  }

  /** 202 and the same body for any email: nothing here tells who has an account. */
  @Post('password-reset')
  @HttpCode(202)
  @SignedOutAllowed()
  async requestReset(@Body() body: PasswordResetRequestDto, @Req() request: FastifyRequest) {
    await this.throttle.beginPasswordReset(body.email, request.ip);
    await this.resets.request(body.email);
    return RESET_REQUESTED;
  }

  /** Sets the new password, ends the person's other sessions, and signs them in here. */
  @Post('password-reset/complete')
  @HttpCode(200)
  @SignedOutAllowed()
  async completeReset(
    @Body() body: PasswordResetCompleteDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionView> {
    await this.throttle.countLinkUse(request.ip);
    const user = await this.resets.complete(body.token, body.password);
    return this.issuer.start(user, await this.accounts.name(user.accountId), request, reply);
  }
}
