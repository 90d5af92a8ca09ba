import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import type { Db } from '../platform/database/db';
import { StatsRepository } from './stats.repository';

/**
 * The statistics hold counts and ids only, except campaign links: a link personalised with a
 * merge field carries the address in its URL. Those links (and who clicked them) are deleted.
 */
@Injectable()
export class StatsErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'stats';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly stats: StatsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    await this.stats.forgetLinksNaming(tx, identity.accountId, identity.emailNormalized);
  }
}
