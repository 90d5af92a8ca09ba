import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureRegistry, ErasureSubjectStore } from '../erasure/erasure-participant';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { SubscribersRepository } from './subscribers.repository';

/**
 * How erasure reaches the subscriber row itself: found by the normalised email before the
 * other participants run, deleted after them, all in the erasing transaction. Registered
 * here so the erasure module needs no knowledge of the subscribers table.
 */
@Injectable()
export class SubscriberErasure implements ErasureSubjectStore, OnModuleInit {
  constructor(
    private readonly registry: ErasureRegistry,
    private readonly subscribers: SubscribersRepository,
  ) {}

  onModuleInit(): void {
    this.registry.registerSubjects(this);
  }

  findSubscriberId(accountId: AccountId, emailNormalized: string, tx: Db) {
    return this.subscribers.findIdByEmail(accountId, emailNormalized, tx);
  }

  deleteSubscriber(accountId: AccountId, subscriberId: string, tx: Db) {
    return this.subscribers.delete(accountId, subscriberId, tx);
  }
}
