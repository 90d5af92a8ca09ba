import { Injectable, OnModuleInit } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import { SuppressionsRepository } from './suppressions.repository';

/**
 * An erased address leaves the suppression list: the entry holds it in plaintext, and the
 * erasure tombstone refuses every later send or write naming it anyway.
 */
@Injectable()
export class SuppressionErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'suppressions';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly suppressions: SuppressionsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Prisma.TransactionClient, identity: ErasedIdentityRef): Promise<void> {
    await this.suppressions.remove(identity.accountId, identity.emailNormalized, tx);
  }
}
