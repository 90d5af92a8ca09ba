import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import { UserRow } from '../people/users.repository';
import { cookieOptions, SESSION_COOKIE } from '../sessions/cookies';
import { csrfTokenFor } from '../sessions/csrf';
import { ABSOLUTE_TTL_MS, SessionsService } from '../sessions/sessions.service';
import { DashboardSession } from '../sessions/signed-in';

export interface SessionView {
  user: { id: string; email: string; name: string | null; role: string } | null;
  account: { id: string; name: string } | null;
  /** Send back in the X-CSRF-Token header of every POST, PATCH and DELETE. */
  csrf_token: string;
}

/**
 * Signs a person in on this browser: a new session, its cookie, and the answer the dashboard
 * adopts. Every way in (sign-up, sign-in, joining by invitation, a password reset) ends here.
 */
@Injectable()
export class SessionIssuer {
  constructor(
    private readonly sessions: SessionsService,
    private readonly hasher: KeyedHasher,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  /** A fresh session on every sign-in: an older one (and its token) is ended first. */
  async start(
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

  view(
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
  secure(request: FastifyRequest): boolean {
    return request.protocol === 'https' || this.config.publicUrl.startsWith('https:');
  }
}
