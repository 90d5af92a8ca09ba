import { Injectable, Logger } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log';
import { newId } from '../../platform/crypto/ids';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import { PrismaService } from '../../platform/database/prisma.service';
import { hashPassword } from '../people/password-hasher';
import { UserRow } from '../people/users.repository';
import { checkPassword, UsersService } from '../people/users.service';
import { SessionsService } from '../sessions/sessions.service';
import { SpentLinkError, UnknownLinkError } from './access-errors';
import { AccessMail } from './access-mail';
import { accessTokenHash, linkState, newAccessToken, plausibleToken } from './access-token';
import { PasswordResetRow, PasswordResetsRepository } from './password-resets.repository';

/** How long a password reset link works. */
export const RESET_TTL_MS = 3600_000;

/**
 * Password reset by an emailed link: asking never says whether the email has an account,
 * the link works once within the hour, and using it signs the person out everywhere.
 */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger(PasswordResetService.name);

  constructor(
    private readonly resets: PasswordResetsRepository,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly mail: AccessMail,
    private readonly hasher: KeyedHasher,
    private readonly prisma: PrismaService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Looks the email up and returns: making the link and handing the mail to the relay happen
   * after the answer, so a known email is not answered more slowly than an unknown one (the
   * answer is the same either way). A mail lost to a crash here is asked for again.
   */
  async request(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user) return;
    void this.issue(user).catch((error: unknown) => {
      this.logger.warn(
        `password reset for user ${user.id}: the email did not go out (${error instanceof Error ? error.message : 'unknown error'})`,
      );
    });
  }

  /**
   * Sets the new password, spends the link and ends every session of the person, in one
   * transaction: a thief's session does not outlive the reset, and a link cannot be used
   * twice. The caller then starts the person's new session.
   */
  async complete(token: string, password: string): Promise<UserRow> {
    const reset = await this.usable(token, new Date());
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    const now = new Date();
    const ended = await this.prisma.$transaction(async (tx) => {
      if (!(await this.resets.use(reset.accountId, reset.id, now, tx))) {
        const again = await this.resets.findByTokenHash(reset.tokenHash);
        throw spent(again ?? reset, now);
      }
      await this.users.setPasswordHash(reset.accountId, reset.userId, passwordHash, tx);
      const count = await this.sessions.endAllOf(reset.accountId, reset.userId, tx);
      await this.audit.record(
        reset.accountId,
        {
          action: 'user.password_reset',
          metadata: { user_id: reset.userId, sessions_ended: count },
        },
        tx,
      );
      return count;
    });
    const user = await this.users.findById(reset.accountId, reset.userId);
    // The row cascades with its user: a user deleted since cannot have used the link.
    if (!user) throw new UnknownLinkError('reset');
    this.logger.log(`user ${user.id} set a new password; ${ended} sessions ended`);
    return user;
  }

  private async issue(user: UserRow): Promise<void> {
    const token = newAccessToken();
    const now = new Date();
    await this.resets.replace(
      user.accountId,
      {
        id: newId(now.getTime()),
        userId: user.id,
        tokenHash: accessTokenHash(this.hasher, 'password-reset', token),
        expiresAt: new Date(now.getTime() + RESET_TTL_MS),
      },
      now,
    );
    await this.audit.record(user.accountId, {
      action: 'user.password_reset_requested',
      metadata: { user_id: user.id },
    });
    await this.mail.sendPasswordReset(user.email, token);
  }

  private async usable(token: string, now: Date): Promise<PasswordResetRow> {
    const row = plausibleToken(token)
      ? await this.resets.findByTokenHash(accessTokenHash(this.hasher, 'password-reset', token))
      : null;
    if (!row) throw new UnknownLinkError('reset');
    if (linkState(row, row.usedAt, now) !== 'usable') throw spent(row, now);
    return row;
  }
}

function spent(row: PasswordResetRow, now: Date): SpentLinkError {
  return SpentLinkError.reset(linkState(row, row.usedAt, now) === 'expired' ? 'expired' : 'used');
}
