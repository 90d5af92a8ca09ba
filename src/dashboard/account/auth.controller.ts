import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import { UserRow } from '../people/users.repository';
import { UsersService } from '../people/users.service';
import { cookieOptions, SESSION_COOKIE, VISITOR_COOKIE } from '../sessions/cookies';
import { csrfTokenFor } from '../sessions/csrf';
import { WrongPasswordError } from '../sessions/dashboard-errors';
import { LoginThrottle } from '../sessions/login-throttle';
import { ABSOLUTE_TTL_MS, SessionsService } from '../sessions/sessions.service';
import { DashboardSession, SignedOutAllowed } from '../sessions/signed-in';
import { SignInDto, SignUpDto } from './auth.dto';

export interface SessionView {
  user: { id: string; email: string; name: string | null; role: string } | null;
  account: { id: string; name: string } | null;
  /** Send back in the X-CSRF-Token header of every POST, PATCH and DELETE. */
  csrf_token: string;
}

/** Sign-up, sign-in, sign-out, and the session probe the dashboard starts with. */
@ApiExcludeController()
@Controller('dashboard/api')
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottle,
    private readonly hasher: KeyedHasher,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  /** Who is signed in, if anyone, and the CSRF token for the next write. */
  @Get('session')
  @SignedOutAllowed()
  session(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): SessionView {
    const session = request.dashboardSession;
    if (session) return this.view(session.sessionId, session);
    let visitor = request.cookies[VISITOR_COOKIE];
    if (!visitor || !/^[A-Za-z0-9_-]{43}$/.test(visitor)) {
      visitor = randomBytes(32).toString('base64url');
      void reply.setCookie(VISITOR_COOKIE, visitor, cookieOptions(this.secure(request)));
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
    return this.startSession(user, body.account_name.trim(), request, reply);
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
    return this.startSession(user, account.name, request, reply);
  }

  @Post('signout')
  @HttpCode(200)
  @SignedOutAllowed()
  async signOut(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ signed_out: true }> {
    if (request.dashboardSession) await this.sessions.end(request.dashboardSession.sessionId);
    void reply.clearCookie(SESSION_COOKIE, cookieOptions(this.secure(request)));
    return { signed_out: true };
  }

  /** A fresh session on every sign-in: an older one (and its token) is ended first. */
  private async startSession(
    user: UserRow,
    accountName: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<SessionView> {
    if (request.dashboardSession) await this.sessions.end(request.dashboardSession.sessionId);
    const session = await this.sessions.start(user);
    void reply.setCookie(
      SESSION_COOKIE,
      session.token,
      cookieOptions(this.secure(request), ABSOLUTE_TTL_MS / 1000),
    );
    return this.view(session.id, { ...user, userId: user.id, accountName });
  }

  private view(
    sessionId: string,
    user: Pick<
      DashboardSession,
      'userId' | 'accountId' | 'email' | 'name' | 'role' | 'accountName'
    >,
  ): SessionView {
    return {
      user: { id: user.userId, email: user.email, name: user.name, role: user.role },
      account: { id: user.accountId, name: user.accountName },
      csrf_token: csrfTokenFor(this.hasher, { kind: 'session', id: sessionId }),
    };
  }

  /** Secure cookies whenever the dashboard is reached over https, directly or per PUBLIC_URL. */
  private secure(request: FastifyRequest): boolean {
    return request.protocol === 'https' || this.config.publicUrl.startsWith('https:');
  }
}
