import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';

/** The identity being erased, as each participant needs it. */
export interface ErasedIdentityRef {
  accountId: string;
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
  erase(tx: Prisma.TransactionClient, identity: ErasedIdentityRef): Promise<void>;
  afterCommit?(identity: Omit<ErasedIdentityRef, 'emailNormalized'>): Promise<void>;
}

@Injectable()
export class ErasureRegistry {
  private readonly participants: ErasureParticipant[] = [];

  /** Call from the participant's module, e.g. in an OnModuleInit hook. */
  register(participant: ErasureParticipant): void {
    this.participants.push(participant);
  }

  all(): readonly ErasureParticipant[] {
    return this.participants;
  }
}
