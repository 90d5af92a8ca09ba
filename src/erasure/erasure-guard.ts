import { Injectable } from '@nestjs/common';
import { AuditActor, AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { KeyedHasher, normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { ComposedStatement, Relation } from '../platform/database/composed-statement';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { EmailErasedError } from './erasure-errors';
import { ErasedIdentitiesRepository } from './erased-identities.repository';
import { lockIdentitiesStatement } from './erasure.sql';

/**
 * Named writes (creating or updating a subscriber, a transactional send) go
 * through here. Inside one transaction it takes an advisory lock per target email, so an
 * erasure of the same email cannot interleave, and refuses erased identities with 409. Each
 * refusal is audited with the keyed hash only.
 */
@Injectable()
export class ErasureGuard {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
    private readonly tombstones: ErasedIdentitiesRepository,
    private readonly hasher: KeyedHasher,
    private readonly audit: AuditLog,
  ) {}

  /** The tombstone key of an email: a keyed hash of its normalised form, per account. */
  emailHash(accountId: AccountId, email: string): string {
    return this.hasher.hash(`erasure:${accountId}`, normalizeEmail(email));
  }

  /**
   * Takes the identities' locks inside `tx` (writes that are not refused for an erased
   * identity, such as removing a suppression entry), so an erasure cannot interleave.
   */
  async lock(accountId: AccountId, emails: string[], tx: Db): Promise<void> {
    const hashes = [...new Set(emails.map((email) => this.emailHash(accountId, email)))];
    await this.tombstones.lock(accountId, hashes, tx);
  }

  /**
   * For bulk writes on a pg transaction (`client`): takes the locks of these emails'
   * identities and answers the hashes of those that are erased, which the caller must not
   * write (and reports with `auditRefusals`).
   */
  lockMany(accountId: AccountId, emailHashes: string[], client: PgClient): Promise<Set<string>> {
    return this.tombstones.lockMany(client, accountId, emailHashes);
  }

  /**
   * lockMany for identities whose hashes are already in the database, in this transaction
   * (`hashesQuery`: a fixed statement answering one text column, e.g. over a staging table).
   * The caller reads erased_identities itself, in a statement after this one.
   */
  lockStaged(accountId: AccountId, hashesQuery: string, client: PgClient): Promise<void> {
    return this.tombstones.lockFrom(client, accountId, hashesQuery);
  }

  /** Audits refused bulk writes (hashes only) inside the caller's pg transaction. */
  async auditRefusals(
    actor: AuditActor,
    emailHashes: string[],
    endpoint: string,
    client: PgClient,
  ): Promise<void> {
    await this.audit.recordMany(
      actor,
      emailHashes.map((subjectHash) => ({
        action: 'erased_identity.write_refused' as const,
        subjectHash,
        metadata: { endpoint },
      })),
      client,
    );
  }

  /**
   * A named write as one composed statement, for a hot path: `write` adds its parts to a
   * statement that also reads which of these identities are erased (the relation it is given,
   * which its writes must be conditional on), and runs it on the transaction's connection.
   * The identities are locked in the round trip of BEGIN, before the statement, so an erasure
   * cannot interleave and the statement's snapshot sees any that committed first. A refused
   * write is audited and answered with EmailErasedError, as in runNamedWrite.
   */
  async runComposedNamedWrite<T>(
    caller: Principal,
    emails: string[],
    endpoint: string,
    write: (
      client: PgClient,
      statement: ComposedStatement,
      erased: Relation<'email_hash'>,
    ) => Promise<{ erased: string | null; result: T }>,
  ): Promise<T> {
    const hashes = [...new Set(emails.map((email) => this.emailHash(caller.accountId, email)))];
    const outcome = await this.pool.transaction(
      (client) => {
        const statement = new ComposedStatement();
        const erased = this.tombstones.addErasedAmong(statement, caller.accountId, hashes);
        return write(client, statement, erased);
      },
      lockIdentitiesStatement(caller.accountId, hashes),
    );
    if (outcome.erased !== null) throw await this.refuse(caller, outcome.erased, endpoint);
    return outcome.result;
  }

  async runNamedWrite<T>(
    caller: Principal,
    emails: string[],
    endpoint: string,
    write: (tx: Db) => Promise<T>,
  ): Promise<T> {
    const hashes = [...new Set(emails.map((email) => this.emailHash(caller.accountId, email)))];
    try {
      return await this.prisma.$transaction(async (tx) => {
        await this.tombstones.lock(caller.accountId, hashes, tx);
        const erased = await this.tombstones.findErased(caller.accountId, hashes, tx);
        if (erased) throw new RefusedErasedWrite(erased);
        return write(tx);
      });
    } catch (error) {
      if (!(error instanceof RefusedErasedWrite)) throw error;
      throw await this.refuse(caller, error.emailHash, endpoint);
    }
  }

  /**
   * Whether an email's identity is erased, read without a lock: for refusing early (an SMTP
   * recipient at RCPT), before the named write that settles it under the lock.
   */
  async isErased(accountId: AccountId, email: string): Promise<boolean> {
    const hash = this.emailHash(accountId, email);
    return (await this.tombstones.findErased(accountId, [hash], this.prisma)) !== undefined;
  }

  /** Audits a refused named write (hash only) and returns the 409 to throw. */
  async refuse(caller: Principal, emailHash: string, endpoint: string): Promise<EmailErasedError> {
    await this.audit.recordBy(caller, {
      action: 'erased_identity.write_refused',
      subjectHash: emailHash,
      metadata: { endpoint },
    });
    return new EmailErasedError();
  }
}

class RefusedErasedWrite extends Error {
  constructor(readonly emailHash: string) {
    super('erased identity');
  }
}
