import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { newId } from '../../platform/crypto/ids';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { SESSION_TOUCH_INTERVAL_MS } from './sessions.settings';
import { SessionsRepository, SessionWithUser } from './sessions.repository';

/** A session lapses after a week unused, and after thirty days whatever happens. */
export const IDLE_TTL_MS = 7 * 24 * 3600_000;
export const ABSOLUTE_TTL_MS = 30 * 24 * 3600_000;
const TOKEN_PURPOSE = 'dashboard-session';

export interface StartedSession {
  /** Goes into the cookie and nowhere else: the database keeps only its keyed hash. */
  token: string;
  id: string;
}

/** Server-side dashboard sessions, found by a keyed hash of the cookie's token. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly hasher: KeyedHasher,
  ) {}

  async start(
    user: { id: string; accountId: AccountId },
    now = new Date(),
  ): Promise<StartedSession> {
    await this.sessions.deleteExpired(now);
    const token = randomBytes(32).toString('base64url');
    const id = newId(now.getTime());
    await this.sessions.create({
      id,
      userId: user.id,
      accountId: user.accountId,
      tokenHash: this.hasher.hash(TOKEN_PURPOSE, token),
      expiresAt: new Date(now.getTime() + IDLE_TTL_MS),
    });
    return { token, id };
  }

  /** The live session behind a cookie token, its idle deadline pushed forward. */
  async resolve(token: string | undefined, now = new Date()): Promise<SessionWithUser | undefined> {
    if (!token || token.length > 100) return undefined;
    const session = await this.sessions.findByTokenHash(this.hasher.hash(TOKEN_PURPOSE, token));
    if (!session) return undefined;
    if (session.expiresAt <= now) {
      await this.sessions.delete(session.id);
      return undefined;
    }
    if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) {
      const expiresAt = new Date(
        Math.min(now.getTime() + IDLE_TTL_MS, session.createdAt.getTime() + ABSOLUTE_TTL_MS),
      );
      await this.sessions.extend(session.id, now, expiresAt);
    }
    return session;
  }

  end(sessionId: string): Promise<void> {
    return this.sessions.delete(sessionId);
  }

  /** Signs a person out everywhere (a password reset); `db` joins the caller's transaction. */
  endAllOf(accountId: AccountId, userId: string, db?: Db): Promise<number> {
    return this.sessions.deleteAllOf(accountId, userId, db);
  }
}
