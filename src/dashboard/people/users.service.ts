import { Inject, Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { AccountsService } from '../../accounts/accounts.service';
import { AuditLog } from '../../audit/audit-log';
import { newId } from '../../platform/crypto/ids';
import { normalizeEmail } from '../../platform/crypto/keyed-hasher';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { PrismaService } from '../../platform/database/prisma.service';
import { SignUpClosedError } from '../sessions/dashboard-errors';
import { ErrorDetail, ValidationFailedError } from '../../platform/errors/api-errors';
import {
  hashPassword,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from './password-hasher';
import { UserRow, UsersRepository } from './users.repository';
import type { PersonRole, UserPrincipal } from '../../auth/principal';
import { isUuid } from '../../platform/crypto/ids';
import { NotFoundError } from '../../platform/errors/api-errors';
import {
  canChangeRoles,
  canRemove,
  LastOwnerError,
  RoleForbiddenError,
  requireRole,
} from './roles';

export interface SignUp {
  accountName: string;
  name?: string;
  email: string;
  password: string;
}

export interface PublicUser {
  id: string;
  account_id: string;
  email: string;
  name: string | null;
  role: string;
}

export function presentUser(user: Omit<UserRow, 'passwordHash'>): PublicUser {
  return {
    id: user.id,
    account_id: user.accountId,
    email: user.email,
    name: user.name,
    role: user.role,
  };
}

const emailTaken = (): ErrorDetail => ({
  field: 'email',
  code: 'already_exists',
  message: 'Someone already signs in with this email.',
});

/** Dashboard people: sign-up, password checks, and users created by the operator CLI. */
@Injectable()
export class UsersService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly users: UsersRepository,
    private readonly accounts: AccountsService,
    private readonly audit: AuditLog,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  /** Creates an account and its owner. */
  async signUp(input: SignUp): Promise<UserRow> {
    // Refused before anything else is checked, so a closed installation says nothing about
    // which emails have accounts.
    const onlyIfFirst = this.config.signup === 'first';
    if (this.config.signup === 'closed') throw new SignUpClosedError();
    if (onlyIfFirst && (await this.accounts.anyExists())) throw new SignUpClosedError();
    checkPassword(input.password);
    const emailNormalized = normalizeEmail(input.email);
    if (await this.users.emailTaken(emailNormalized))
      throw new ValidationFailedError([emailTaken()]);
    const passwordHash = await hashPassword(input.password);
    // The account and its owner together, so a failed user insert (say, the email was taken
    // a moment ago) leaves no ownerless account behind.
    const owner = await uniqueEmail(() =>
      this.prisma.$transaction(async (tx) => {
        // Checked again under the lock: two first sign-ups at once cannot both get in.
        const account = await this.accounts.openForSignUp(input.accountName, tx, onlyIfFirst);
        if (!account) throw new SignUpClosedError();
        return this.users.create(
          account.id,
          {
            id: newId(),
            email: input.email.trim(),
            emailNormalized,
            name: input.name?.trim() || undefined,
            passwordHash,
            role: 'owner',
          },
          tx,
        );
      }),
    );
    await this.audit.record(owner.accountId, {
      action: 'account.created',
      metadata: { user_id: owner.id },
    });
    return owner;
  }

  /** A further user of an existing account (the operator CLI resolves the account first). */
  async createForAccount(accountId: AccountId, email: string, password: string): Promise<UserRow> {
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) {
      throw new ValidationFailedError([
        { field: 'email', code: 'invalid_format', message: 'email must be an email address' },
      ]);
    }
    checkPassword(password);
    const emailNormalized = normalizeEmail(email);
    if (await this.users.emailTaken(emailNormalized))
      throw new ValidationFailedError([emailTaken()]);
    const passwordHash = await hashPassword(password);
    return uniqueEmail(() =>
      this.users.create(accountId, {
        id: newId(),
        email: email.trim(),
        emailNormalized,
        passwordHash,
      }),
    );
  }

  async accountOf(user: UserRow): Promise<{ id: string; name: string }> {
    return { id: user.accountId, name: await this.accounts.name(user.accountId) };
  }

  /** Team members of an account by id, for naming the people in the audit log. */
  listByIds(accountId: AccountId, ids: string[]) {
    return this.users.listByIds(accountId, ids);
  }

  /** Someone who signs in with this email, if anyone (a password reset is for them). */
  findByEmail(email: string): Promise<UserRow | null> {
    return this.users.findByEmail(normalizeEmail(email));
  }

  findById(accountId: AccountId, id: string): Promise<UserRow | null> {
    return this.users.findById(accountId, id);
  }

  listMembers(accountId: AccountId) {
    return this.users.listMembers(accountId);
  }

  /**
   * A person joining an existing account (by invitation); `db` joins the transaction that
   * spends the invitation, so a taken email leaves the invitation unused.
   */
  async join(
    accountId: AccountId,
    person: { email: string; name?: string; passwordHash: string; role: PersonRole },
    db: Db,
  ): Promise<UserRow> {
    return uniqueEmail(() =>
      this.users.create(
        accountId,
        {
          id: newId(),
          email: person.email.trim(),
          emailNormalized: normalizeEmail(person.email),
          name: person.name?.trim() || undefined,
          passwordHash: person.passwordHash,
          role: person.role,
        },
        db,
      ),
    );
  }

  /**
   * Gives someone of the caller's account another role (owners only). The account's owners
   * are locked first, so of two owners demoting each other at once one stays an owner.
   */
  async changeRole(caller: UserPrincipal, id: string, role: PersonRole) {
    requireRole(caller, canChangeRoles, 'change roles');
    const { accountId } = caller;
    await this.prisma.$transaction(async (tx) => {
      const owners = await this.users.lockOwners(accountId, tx);
      const person = isUuid(id) ? await this.users.findById(accountId, id, tx) : null;
      if (!person) throw new NotFoundError('person');
      if (person.role === role) return;
      if (person.role === 'owner' && owners.length <= 1) throw new LastOwnerError();
      await this.users.setRole(accountId, id, role, tx);
      await this.audit.recordBy(
        caller,
        { action: 'user.role_changed', metadata: { member_id: id, from: person.role, to: role } },
        tx,
      );
    });
    return this.member(accountId, id);
  }

  /**
   * Removes someone from the caller's account: an owner anyone, an admin members only. Their
   * sessions are deleted with them, so their next request is signed out; the last owner stays.
   */
  async remove(caller: UserPrincipal, id: string): Promise<void> {
    const { accountId } = caller;
    await this.prisma.$transaction(async (tx) => {
      const owners = await this.users.lockOwners(accountId, tx);
      const person = isUuid(id) ? await this.users.findById(accountId, id, tx) : null;
      if (!person) throw new NotFoundError('person');
      if (!canRemove(caller.role, person.role)) {
        throw new RoleForbiddenError(caller.role, `remove an ${person.role}`);
      }
      if (person.role === 'owner' && owners.length <= 1) throw new LastOwnerError();
      await this.users.remove(accountId, id, tx);
      await this.audit.recordBy(
        caller,
        { action: 'user.removed', metadata: { member_id: id, role: person.role } },
        tx,
      );
    });
  }

  private async member(accountId: AccountId, id: string) {
    const found = (await this.users.listMembers(accountId)).find((member) => member.id === id);
    if (!found) throw new NotFoundError('person');
    return found;
  }

  emailTaken(email: string): Promise<boolean> {
    return this.users.emailTaken(normalizeEmail(email));
  }

  setPasswordHash(accountId: AccountId, id: string, passwordHash: string, db: Db): Promise<void> {
    return this.users.setPasswordHash(accountId, id, passwordHash, db);
  }

  /** The user whose email and password these are, or undefined; same cost either way. */
  async authenticate(email: string, password: string): Promise<UserRow | undefined> {
    const user = await this.users.findByEmail(normalizeEmail(email));
    const ok = await verifyPassword(password, user?.passwordHash);
    if (!ok || !user) return undefined;
    await this.users.recordSignIn(user.accountId, user.id, new Date());
    await this.audit.record(user.accountId, {
      action: 'user.signed_in',
      metadata: { user_id: user.id },
    });
    return user;
  }
}

/** 422 on `password` unless it is at least 12 characters and at most what bcrypt reads. */
export function checkPassword(password: string): void {
  const problem =
    password.length < PASSWORD_MIN_LENGTH
      ? { code: 'too_short', message: `Use at least ${PASSWORD_MIN_LENGTH} characters.` }
      : Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES
        ? { code: 'too_long', message: `Use at most ${PASSWORD_MAX_BYTES} bytes.` }
        : undefined;
  if (problem) throw new ValidationFailedError([{ field: 'password', ...problem }]);
}

/** Two sign-ups with one email at once: the unique index decides, the loser gets a 422. */
async function uniqueEmail<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new ValidationFailedError([emailTaken()]);
    }
    throw error;
  }
}
