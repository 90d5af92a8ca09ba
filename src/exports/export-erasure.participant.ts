import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import type { Db } from '../platform/database/db';
import { FileStore } from '../platform/storage/file-store';
import { ExportsRepository } from './exports.repository';

/**
 * What erasure means for exports: a stored export may hold the person's row, and its bytes
 * cannot be searched for them, so every finished export of the account expires in the erasing
 * transaction and its file is deleted. An export still running checks for erasures before it
 * finishes (ExportRunner) and starts over if it met one.
 */
@Injectable()
export class ExportErasureParticipant implements ErasureParticipant, OnModuleInit {
  readonly name = 'exports';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly exports: ExportsRepository,
    private readonly files: FileStore,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    const fileIds = await this.exports.expireAccountInTransaction(tx, identity.accountId);
    await this.files.deleteManyInTransaction(identity.accountId, fileIds, tx);
  }
}
