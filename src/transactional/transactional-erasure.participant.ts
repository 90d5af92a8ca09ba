import { Injectable, OnModuleInit } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import type { Db } from '../platform/database/db';
import { MailTransport } from '../platform/mail/mail-transport';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { TransactionalMessagesRepository } from './transactional-messages.repository';

/** The outbox folder of a recipient's stored copies: named by the erasure hash, not the address. */
export function recipientStorageKey(recipientHash: string): string {
  return `transactional-${recipientHash}`;
}

/**
 * Erasure reaches transactional mail: the messages to the erased address lose every personal
 * column (and unsent ones will not be sent), the idempotency records that created them are
 * forgotten, and stored .eml copies (outbox mode) are deleted after commit.
 */
@Injectable()
export class TransactionalErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'transactional';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly messages: TransactionalMessagesRepository,
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly mail: MailTransport,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    // Keys first: they are found through the messages' recipient hash.
    await this.idempotencyKeys.forgetMessagesTo(identity.accountId, identity.emailHash, tx);
    await this.messages.scrubRecipient(identity.accountId, identity.emailHash, tx);
  }

  async afterCommit(identity: { emailHash: string }): Promise<void> {
    const folder = this.mail.storageFolder(recipientStorageKey(identity.emailHash));
    await rm(folder, { recursive: true, force: true });
  }
}
