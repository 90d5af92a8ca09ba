import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import { UsersService } from '../people/users.service';
import { cookieOptions, SESSION_COOKIE, VISITOR_COOKIE } from '../sessions/cookies';
import { csrfTokenFor } from '../sessions/csrf';
import { WrongPasswordError } from '../sessions/dashboard-errors';
import { LoginThrottle } from '../sessions/login-throttle';
import { SessionsService } from '../sessions/sessions.service';
import { SignedOutAllowed } from '../sessions/signed-in';
import { SignInDto, SignUpDto } from './auth.dto';
import { SessionIssuer, SessionView } from './session-issuer';

/** Sign-up, sign-in, sign-out, and the session probe the dashboard starts with. */
@ApiExcludeController()
@Controller('dashboard/api')
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottle,
    private readonly hasher: KeyedHasher,
    private readonly issuer: SessionIssuer,
  ) {}

  /** Who is signed in, if anyone, and the CSRF token for the next write. */
  @Get('session')
  @SignedOutAllowed()
  session(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): SessionView {
    const session = request.dashboardSession;
    if (session) return this.issuer.view(session.sessionId, session);
    let visitor = request.cookies[VISITOR_COOKIE];
    if (!visitor || !/^[A-Za-z0-9_-]{43}$/.test(visitor)) {
      visitor = randomBytes(32).toString('base64url');
      void reply.setCookie(VISITOR_COOKIE, visitor, cookieOptions(this.issuer.secure(request)));
    }
    return {
      user: null,
      account: null,
      csrf_token: csrfTokenFor(this.hasher, { kind: 'visitor', nonce: visitor }),
    };
  }

  @Post('signup')
  @SignedOutAllowed()
  async signUp(
    @Body() body: SignUpDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionView> {
    await this.throttle.countSignUp(request.ip);
    const user = await this.users.signUp({
      accountName: body.account_name,
      name: body.name,
      email: body.email,
      password: body.password,
    });
    return this.issuer.start(user, body.account_name.trim(), request, reply);
  }

  @Post('signin')
  @HttpCode(200)
  @SignedOutAllowed()
  async signIn(
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionView> {
    await this.throttle.beginSignIn(body.email, request.ip);
    const user = await this.users.authenticate(body.email, body.password);
    if (!user) throw new WrongPasswordError();
    await this.throttle.recordSuccess(body.email, request.ip);
    const account = await this.users.accountOf(user);
    return this.issuer.start(user, account.name, request, reply);
  }

  @Post('signout')
  @HttpCode(200)
  @SignedOutAllowed()
  async signOut(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ signed_out: true }> {
    if (request.dashboardSession) await this.sessions.end(request.dashboardSession.sessionId);
    void reply.clearCookie(SESSION_COOKIE, cookieOptions(this.issuer.secure(request)));
    return { signed_out: true };
  }
}
