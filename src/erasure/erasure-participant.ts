import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';

/** The identity being erased, as each participant needs it. */
export interface ErasedIdentityRef {
  accountId: AccountId;
  /** Normalised plaintext: usable only inside the erasing transaction, never stored. */
  emailNormalized: string;
  emailHash: string;
  /** The subscriber row being deleted, if there was one. */
  subscriberId: string | undefined;
}

/**
 * A domain that keeps personal data of its own (send ledgers, transactional messages,
 * stored message files) registers one of these, so erasure reaches it without the erasure
 * module knowing every domain. `erase` runs inside the erasing transaction, before the
 * subscriber row is deleted; anything outside PostgreSQL (files, Redis) is removed in
 * `afterCommit`, which must be idempotent because a later erasure call retries it.
 */
export interface ErasureParticipant {
  readonly name: string;
  erase(tx: Db, identity: ErasedIdentityRef): Promise<void>;
  afterCommit?(identity: Omit<ErasedIdentityRef, 'emailNormalized'>): Promise<void>;
}

/**
 * The owner of the erased person's own row (the subscribers module), which erasure reaches
 * the same way: the row is found before the participants run (they need its id) and deleted
 * after them, inside the erasing transaction.
 */
export interface ErasureSubjectStore {
  findSubscriberId(
    accountId: AccountId,
    emailNormalized: string,
    tx: Db,
  ): Promise<string | undefined>;
  deleteSubscriber(accountId: AccountId, subscriberId: string, tx: Db): Promise<void>;
}

@Injectable()
export class ErasureRegistry {
  private readonly participants: ErasureParticipant[] = [];
  private subjectStore: ErasureSubjectStore | undefined;

  /** Call from the participant's module, e.g. in an OnModuleInit hook. */
  register(participant: ErasureParticipant): void {
    this.participants.push(participant);
  }

  all(): readonly ErasureParticipant[] {
    return this.participants;
  }

  /** Called by the subscribers module, which owns the rows erasure deletes. */
  registerSubjects(store: ErasureSubjectStore): void {
    this.subjectStore = store;
  }

  subjects(): ErasureSubjectStore {
    // An erasure that could not find the person's row would leave it behind: refuse instead.
    if (!this.subjectStore) throw new Error('No subscriber store registered for erasure');
    return this.subjectStore;
  }
}
