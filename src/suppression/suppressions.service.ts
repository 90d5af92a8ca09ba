import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { ErasureGuard } from '../erasure/erasure-guard';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import { PrismaService } from '../platform/database/prisma.service';
import { NotFoundError } from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { SubscribersService } from '../subscribers/subscribers.service';
import { SuppressionResponse } from './suppression.dto';
import { presentSuppression } from './suppression.presenter';
import { STATUS_OF_REASON, SuppressionReason } from './suppression-reason';
import { SuppressionsRepository } from './suppressions.repository';

const ADD_ENDPOINT = 'POST /v1/suppressions';

export interface AddedSuppression {
  suppression: SuppressionResponse;
  /** False when the address was already listed (the existing entry is returned). */
  created: boolean;
}

/**
 * The suppression list as the API and the dashboard see it. Removing an entry is the one way
 * to mail a suppressed address again (a subscriber PATCH to `subscribed` is refused while the
 * entry exists), so it is audited and also undoes the status the entry caused.
 */
@Injectable()
export class SuppressionsService {
  constructor(
    private readonly repository: SuppressionsRepository,
    private readonly subscribers: SubscribersService,
    private readonly erasureGuard: ErasureGuard,
    private readonly audit: AuditLog,
    private readonly paginator: Paginator,
    private readonly prisma: PrismaService,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<SuppressionResponse>> {
    return this.paginator.list(caller.accountId, query, this.repository, presentSuppression);
  }

  /**
   * A named write like creating a subscriber: an erased address is refused (409, audited by
   * hash), because listing it would store it again.
   */
  async add(caller: Principal, email: string): Promise<AddedSuppression> {
    const { accountId } = caller;
    const { entry, created } = await this.erasureGuard.runNamedWrite(
      caller,
      [email],
      ADD_ENDPOINT,
      async (tx) => {
        const added = await this.repository.add(accountId, normalizeEmail(email), 'manual', tx);
        if (added.created) {
          await this.audit.recordBy(
            caller,
            {
              action: 'suppression.added',
              subjectHash: this.erasureGuard.emailHash(accountId, email),
              metadata: { reason: 'manual' },
            },
            tx,
          );
        }
        return added;
      },
    );
    return { suppression: presentSuppression(entry), created };
  }

  /** The subscription of a person (null when the subscriber is gone, e.g. erased). */
  async subscription(accountId: AccountId, subscriberId: string): Promise<Subscription | null> {
    const subscriber = await this.subscribers.findRow(accountId, subscriberId);
    if (!subscriber) return null;
    const entry = await this.repository.find(accountId, subscriber.emailNormalized);
    const suppressed = (entry?.reason ?? null) as SuppressionReason | null;
    return {
      status: subscriber.status,
      suppressed,
      canResubscribe: mayResubscribe(subscriber.status, suppressed),
    };
  }

  /**
   * The person themselves, from their subscription page (the signed link in a message is
   * their credential), takes up the mail again: their own unsubscribe or complaint entry is
   * removed and the status goes back to `subscribed`. Audited like any reactivation. False
   * when it is not theirs to undo (see mayResubscribe).
   */
  async resubscribe(accountId: AccountId, subscriberId: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const subscriber = await this.subscribers.findRow(accountId, subscriberId);
      if (!subscriber) return false;
      const subjectHash = this.erasureGuard.emailHash(accountId, subscriber.email);
      await this.erasureGuard.lock(accountId, [subscriber.email], tx);
      const entry = await this.repository.find(accountId, subscriber.emailNormalized, tx);
      const reason = (entry?.reason ?? null) as SuppressionReason | null;
      if (!mayResubscribe(subscriber.status, reason)) return false;
      if (entry) await this.repository.remove(accountId, subscriber.emailNormalized, tx);
      const status = subscriber.status === 'subscribed' ? undefined : subscriber.status;
      await this.subscribers.reactivate(accountId, subscriber.emailNormalized, status, tx);
      await this.audit.record(
        accountId,
        {
          action: 'subscriber.resubscribed',
          subjectHash,
          metadata: { via: 'subscription_page', previous_status: subscriber.status },
        },
        tx,
      );
      return true;
    });
  }

  /** Removes the entry and reactivates the subscriber it had stopped; 404 if not listed. */
  async remove(caller: Principal, email: string): Promise<void> {
    const { accountId } = caller;
    const emailNormalized = normalizeEmail(email);
    const subjectHash = this.erasureGuard.emailHash(accountId, email);
    await this.prisma.$transaction(async (tx) => {
      // The identity's lock: an erasure of the same address cannot interleave.
      await this.erasureGuard.lock(accountId, [email], tx);
      const removed = await this.repository.remove(accountId, emailNormalized, tx);
      if (!removed) throw new NotFoundError('suppression');
      const reason = removed.reason as SuppressionReason;
      const reactivated = await this.subscribers.reactivate(
        accountId,
        emailNormalized,
        STATUS_OF_REASON[reason],
        tx,
      );
      await this.audit.recordBy(
        caller,
        {
          action: 'suppression.removed',
          subjectHash,
          metadata: { reason, reactivated_subscriber: reactivated },
        },
        tx,
      );
    });
  }
}

/** Where a person stands with an account's mail, as their subscription page shows it. */
export interface Subscription {
  status: string;
  /** Why the address is suppressed, if it is. */
  suppressed: SuppressionReason | null;
  /** Whether the person may subscribe again themselves (see resubscribe). */
  canResubscribe: boolean;
}

/**
 * Whether a person may take up the mail again themselves: only undoing their own opt-out
 * (an unsubscribe or a complaint). A bounce, an operator's manual entry or a status the
 * client set is not theirs to undo.
 */
function mayResubscribe(status: string, reason: SuppressionReason | null): boolean {
  return (
    [null, 'unsubscribe', 'complaint'].includes(reason) &&
    ['subscribed', 'unsubscribed', 'complained'].includes(status)
  );
}
