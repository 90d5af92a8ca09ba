import { Injectable, Logger } from '@nestjs/common';
import { AccountsService } from '../../accounts/accounts.service';
import { AuditLog } from '../../audit/audit-log';
import { PersonRole, UserPrincipal } from '../../auth/principal';
import { isUuid, newId } from '../../platform/crypto/ids';
import { KeyedHasher, normalizeEmail } from '../../platform/crypto/keyed-hasher';
import { PrismaService } from '../../platform/database/prisma.service';
import { NotFoundError, ValidationFailedError } from '../../platform/errors/api-errors';
import { hashPassword } from '../people/password-hasher';
import { UserRow } from '../people/users.repository';
import { checkPassword, UsersService } from '../people/users.service';
import { OwnerOnlyError, SpentLinkError, UnknownLinkError } from './access-errors';
import { canInvite } from '../people/roles';
import { AccessMail } from './access-mail';
import { accessTokenHash, linkState, newAccessToken, plausibleToken } from './access-token';
import { InvitationRow, InvitationsRepository } from './invitations.repository';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** How long creating an invitation waits for the relay to take its email. */
const INVITATION_MAIL_WAIT_MS = 10_000;
/** What an invitee becomes: a member; the owner is whoever created the account. */
const INVITED_ROLE: PersonRole = 'member';

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** The creation answer: the link (its token) is shown this once and never again. */
export interface CreatedInvitation extends InvitationView {
  url: string;
  /** True when the link was also emailed to the invitee (only with a relay configured). */
  emailed: boolean;
}

export function presentInvitation(row: InvitationRow, now = new Date()): InvitationView {
  const state = linkState(row, row.acceptedAt, now);
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: state === 'usable' ? 'pending' : state === 'used' ? 'accepted' : state,
    invited_by: row.invitedBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    accepted_at: row.acceptedAt?.toISOString() ?? null,
  };
}

/**
 * Joining an account: its owner invites someone by email and gets a link; whoever opens it
 * within 7 days chooses a name and password and becomes a member of that account. This is
 * how people get in whatever SIGNUP says (sign-up makes new accounts, not new members).
 */
@Injectable()
export class InvitationsService {
  private readonly logger = new Logger(InvitationsService.name);

  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly users: UsersService,
    private readonly accounts: AccountsService,
    private readonly mail: AccessMail,
    private readonly hasher: KeyedHasher,
    private readonly prisma: PrismaService,
    private readonly audit: AuditLog,
  ) {}

  async list(caller: UserPrincipal): Promise<{ data: InvitationView[] }> {
    const rows = await this.invitations.list(caller.accountId);
    const now = new Date();
    return { data: rows.map((row) => presentInvitation(row, now)) };
  }

  async create(caller: UserPrincipal, email: string): Promise<CreatedInvitation> {
    const inviter = await this.inviter(caller);
    const emailNormalized = normalizeEmail(email);
    const members = await this.users.listMembers(caller.accountId);
    if (members.some((member) => normalizeEmail(member.email) === emailNormalized)) {
      throw new ValidationFailedError([
        { field: 'email', code: 'already_exists', message: 'Already a member of this account.' },
      ]);
    }
    const token = newAccessToken();
    const now = new Date();
    const row = await this.prisma.$transaction(async (tx) => {
      await this.invitations.revokePendingFor(caller.accountId, emailNormalized, now, tx);
      const created = await this.invitations.create(
        caller.accountId,
        {
          id: newId(now.getTime()),
          email: email.trim(),
          emailNormalized,
          role: INVITED_ROLE,
          tokenHash: accessTokenHash(this.hasher, 'invitation', token),
          invitedBy: caller.userId,
          createdAt: now,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        },
        tx,
      );
      await this.audit.recordBy(
        caller,
        { action: 'invitation.created', metadata: { invitation_id: created.id } },
        tx,
      );
      return created;
    });
    const emailed = await this.email(row, inviter, token);
    return { ...presentInvitation(row, now), url: this.mail.invitationUrl(token), emailed };
  }

  async revoke(caller: UserPrincipal, id: string): Promise<InvitationView> {
    await this.inviter(caller);
    if (!isUuid(id)) throw new NotFoundError('invitation');
    const now = new Date();
    if (await this.invitations.revoke(caller.accountId, id, now)) {
      await this.audit.recordBy(caller, {
        action: 'invitation.revoked',
        metadata: { invitation_id: id },
      });
    }
    const row = await this.invitations.find(caller.accountId, id);
    if (!row) throw new NotFoundError('invitation');
    return presentInvitation(row, now);
  }

  /** What the join page shows before the invitee commits to anything. */
  async inspect(
    token: string,
  ): Promise<{ email: string; account_name: string; expires_at: string }> {
    const invitation = await this.usable(token, new Date());
    return {
      email: invitation.email,
      account_name: await this.accounts.name(invitation.accountId),
      expires_at: invitation.expiresAt.toISOString(),
    };
  }

  /** The invitee joins: a member of the inviting account, signing in with the invited email. */
  async accept(token: string, person: { name?: string; password: string }): Promise<UserRow> {
    const invitation = await this.usable(token, new Date());
    checkPassword(person.password);
    const passwordHash = await hashPassword(person.password);
    const now = new Date();
    // The person and the spent invitation together: a taken email leaves the link usable,
    // and of two people opening the same link at once only one joins.
    const user = await this.prisma.$transaction(async (tx) => {
      const joined = await this.users.join(
        invitation.accountId,
        { email: invitation.email, name: person.name, passwordHash, role: invitation.role },
        tx,
      );
      if (
        !(await this.invitations.accept(invitation.accountId, invitation.id, joined.id, now, tx))
      ) {
        const again = await this.invitations.findByTokenHash(invitation.tokenHash);
        throw spent(again ?? invitation, now);
      }
      await this.audit.record(
        invitation.accountId,
        {
          action: 'invitation.accepted',
          metadata: { invitation_id: invitation.id, user_id: joined.id },
        },
        tx,
      );
      return joined;
    });
    return user;
  }

  /** The invitation behind a token, or the error that says why it cannot be used. */
  private async usable(token: string, now: Date): Promise<InvitationRow> {
    const row = plausibleToken(token)
      ? await this.invitations.findByTokenHash(accessTokenHash(this.hasher, 'invitation', token))
      : null;
    if (!row) throw new UnknownLinkError('invitation');
    if (linkState(row, row.acceptedAt, now) !== 'usable') throw spent(row, now);
    return row;
  }

  /** The caller, who must be an owner or admin of the account (people/roles.ts). */
  private async inviter(caller: UserPrincipal): Promise<UserRow> {
    const user = await this.users.findById(caller.accountId, caller.userId);
    if (!user || !canInvite(user.role)) throw new OwnerOnlyError();
    return user;
  }

  /**
   * Emails the link when a relay is configured. Without one the owner passes the link on
   * (the outbox is for testing campaigns, not a mailbox anyone reads). A relay that fails
   * does not undo the invitation: the owner has the link on screen.
   */
  private async email(row: InvitationRow, inviter: UserRow, token: string): Promise<boolean> {
    if (!this.mail.relayConfigured) return false;
    const sending = this.mail
      .sendInvitation(row.email, {
        accountName: await this.accounts.name(row.accountId),
        inviter: inviter.name ?? inviter.email,
        token,
      })
      .then(
        () => true,
        (error: unknown) => {
          this.logger.warn(
            `invitation ${row.id}: the email did not go out (${error instanceof Error ? error.message : 'unknown error'}); the link was shown to the owner`,
          );
          return false;
        },
      );
    // A relay that hangs must not hold the owner's page for minutes (SMTP timeouts are long):
    // past the wait the answer says "not emailed", and the owner passes the link on.
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), INVITATION_MAIL_WAIT_MS);
    });
    try {
      return await Promise.race([sending, waited]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function spent(row: InvitationRow, now: Date): SpentLinkError {
  const state = linkState(row, row.acceptedAt, now);
  return SpentLinkError.invitation(state === 'usable' ? 'used' : state);
}
