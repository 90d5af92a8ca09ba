import { Injectable } from '@nestjs/common';
import { Prisma, Suppression } from '../generated/prisma/client';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import { ValidationFailedError } from '../platform/errors/api-errors';
import { SuppressionReason } from './suppression-reason';
import { SuppressionsRepository } from './suppressions.repository';

type Db = Prisma.TransactionClient;

/**
 * What other modules ask of the suppression list: is an address suppressed, and suppress one
 * (Herald itself, on a bounce, complaint or unsubscribe). No HTTP, no dependency on other
 * domains, so subscribers, transactional mail and the feedback loop can all use it.
 */
@Injectable()
export class SuppressionList {
  constructor(private readonly repository: SuppressionsRepository) {}

  find(accountId: AccountId, email: string, db?: Db): Promise<Suppression | null> {
    return this.repository.find(accountId, normalizeEmail(email), db);
  }

  /** Why the address is on the list (its reason), or undefined when it is not. */
  listedReason(accountId: AccountId, email: string): Promise<string | undefined> {
    return this.repository.listedReason(accountId, normalizeEmail(email));
  }

  /** Which of these normalised addresses are on the list. */
  suppressedAmong(accountId: AccountId, emailsNormalized: string[]): Promise<Set<string>> {
    return this.repository.listedAmong(accountId, emailsNormalized);
  }

  /**
   * Refuses a write that would mail a suppressed address: 422 on `field`, code `suppressed`,
   * naming the reason and the way back.
   */
  async assertNotSuppressed(accountId: AccountId, email: string, field: string, db?: Db) {
    const entry = await this.find(accountId, email, db);
    if (entry) throw suppressedError(field, entry.reason);
  }

  /**
   * assertNotSuppressed as a part of a composed write: the address's entry if it is listed
   * (its `reason`), which the write must be conditional on; `suppressedError` is the refusal.
   */
  addListed(statement: ComposedStatement, accountId: AccountId, email: string): Relation<'reason'> {
    return this.repository.addListed(statement, accountId, normalizeEmail(email));
  }

  suppress(
    accountId: AccountId,
    emailNormalized: string,
    reason: SuppressionReason,
    db?: Db,
  ): Promise<{ entry: Suppression; created: boolean }> {
    return this.repository.add(accountId, emailNormalized, reason, db);
  }

  /**
   * suppress() for the addresses of a relation of a composed statement (email_normalized,
   * suppress) marked `suppress`, at most `most` of them: part of the send pipeline's outcome
   * write.
   */
  addSuppressed(
    statement: ComposedStatement,
    accountId: AccountId,
    source: Relation<'email_normalized' | 'suppress'>,
    most: number,
    reason: SuppressionReason,
  ): void {
    this.repository.addFrom(statement, accountId, source, most, reason);
  }
}

/** The 422 of a write that would mail a suppressed address, naming the reason and the way back. */
export function suppressedError(field: string, reason: string): ValidationFailedError {
  return new ValidationFailedError([
    {
      field,
      code: 'suppressed',
      message:
        `This address is on the suppression list (${reason}); ` +
        'removing it (DELETE /v1/suppressions/{email}) is the way to mail it again.',
    },
  ]);
}
