import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import type { Db } from '../platform/database/db';
import { MessagesRepository } from './messages.repository';

/**
 * Erasure reaches the message log: the identity's messages (to its address, or to its
 * subscriber under an older address) keep their ids, times and events but no address, no
 * subject and no hash, so a search for the address finds nothing; SMTP replies and clicked
 * links, which may quote the address, go too.
 */
@Injectable()
export class MessagesErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'messages';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly messages: MessagesRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    return this.messages.erase(tx, identity.accountId, identity.emailHash, identity.subscriberId);
  }
}
