import { Injectable } from '@nestjs/common';
import { Prisma, Subscriber } from '../generated/prisma/client';
import { Principal } from '../auth/principal';
import { ErasureGuard } from '../erasure/erasure-guard';
import { ErasureReceipt, ErasureService } from '../erasure/erasure.service';
import { isUuid, newId } from '../platform/crypto/ids';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { NotFoundError, ValidationFailedError } from '../platform/errors/api-errors';
import { EmailErasedError } from '../erasure/erasure-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import type { CreateSubscriberDto, UpdateSubscriberDto } from './subscriber.dto';
import { presentSubscriber, SubscriberResponse } from './subscriber.presenter';
import { toColumns } from './subscriber-columns';
import { SubscriberSearchRepository } from './subscriber-search.repository';
import { SuppressionList } from '../suppression/suppression-list';
import { SubscribersRepository } from './subscribers.repository';
import { WebhookPublisher } from '../webhooks/webhook-publisher';
import { subscriberEvent } from './subscriber-events';
import { mergedOverLimit } from './subscriber-merged-limits';

const PATCH_ENDPOINT = 'PATCH /v1/subscribers/{id}';

const emailTaken = () =>
  new ValidationFailedError([
    {
      field: 'email',
      code: 'already_exists',
      message: 'A subscriber with this email already exists.',
    },
  ]);

@Injectable()
export class SubscribersService {
  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly erasureGuard: ErasureGuard,
    private readonly erasure: ErasureService,
    private readonly suppressions: SuppressionList,
    private readonly paginator: Paginator,
    private readonly searches: SubscriberSearchRepository,
    private readonly events: WebhookPublisher,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<SubscriberResponse>> {
    return this.paginator.list(caller.accountId, query, this.subscribers, presentSubscriber);
  }

  /** The dashboard's list: subscribers whose email contains `text`, newest first. */
  search(caller: Principal, query: ListQuery, text: string): Promise<Page<SubscriberResponse>> {
    return this.paginator.page(
      caller.accountId,
      'dashboard-subscribers',
      query,
      (page) => this.searches.search(caller.accountId, text, page),
      presentSubscriber,
    );
  }

  async get(caller: Principal, id: string): Promise<SubscriberResponse> {
    const row = isUuid(id) ? await this.subscribers.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('subscriber');
    return presentSubscriber(row);
  }

  async create(caller: Principal, body: CreateSubscriberDto): Promise<SubscriberResponse> {
    const { accountId } = caller;
    const columns = toColumns(body);
    const row = await this.erasureGuard.runNamedWrite(
      caller,
      [body.email],
      'POST /v1/subscribers',
      async (tx) => {
        // The advisory lock held by runNamedWrite serialises creates of this email, so the
        // check below cannot race; the unique index stays as the last line of defence.
        if (await this.subscribers.emailTaken(accountId, normalizeEmail(body.email), tx)) {
          throw emailTaken();
        }
        const created = await this.subscribers.create(accountId, newId(), columns, tx);
        await this.events.publish(tx, accountId, [subscriberEvent('subscriber.created', created)]);
        return created;
      },
    );
    return presentSubscriber(row);
  }

  async update(
    caller: Principal,
    id: string,
    body: UpdateSubscriberDto,
  ): Promise<SubscriberResponse> {
    const { accountId } = caller;
    const current = isUuid(id) ? await this.subscribers.findById(accountId, id) : null;
    if (!current) {
      const erasedHash = isUuid(id) ? await this.erasure.erasedHashOf(accountId, id) : undefined;
      if (erasedHash) throw await this.erasureGuard.refuse(caller, erasedHash, PATCH_ENDPOINT);
      throw new NotFoundError('subscriber');
    }
    const columns = toColumns(body, current.importedStats as Prisma.JsonObject);
    const overLimit = mergedOverLimit(Object.entries(columns));
    if (overLimit) throw new ValidationFailedError([overLimit]);
    const emails = body.email === undefined ? [current.email] : [current.email, body.email];
    const updated = await this.erasureGuard.runNamedWrite(
      caller,
      emails,
      PATCH_ENDPOINT,
      async (tx): Promise<Subscriber> => {
        const changesEmail =
          body.email !== undefined && normalizeEmail(body.email) !== current.emailNormalized;
        if (
          changesEmail &&
          (await this.subscribers.emailTaken(accountId, normalizeEmail(body.email!), tx))
        ) {
          throw emailTaken();
        }
        // Back to `subscribed` is not a PATCH away while the address is suppressed: removing
        // the suppression entry is the one, audited, way to reactivate it.
        if (body.status === 'subscribed' && current.status !== 'subscribed') {
          await this.suppressions.assertNotSuppressed(
            accountId,
            body.email ?? current.email,
            'status',
            tx,
          );
        }
        const before = await this.subscribers.lockStatus(accountId, id, tx);
        const row = await this.subscribers.update(accountId, id, columns, tx);
        // Gone between the read and the lock: only an erasure deletes subscribers.
        if (!row) throw new EmailErasedError();
        const events = [subscriberEvent('subscriber.updated', row)];
        // Every change to `unsubscribed` is announced as such, whoever makes it; the row is
        // locked from the read of its status, so a concurrent unsubscribe (a link, a report)
        // finds it unsubscribed already and announces nothing.
        if (row.status === 'unsubscribed' && before !== 'unsubscribed') {
          events.push(subscriberEvent('subscriber.unsubscribed', row));
        }
        await this.events.publish(tx, accountId, events);
        return row;
      },
    );
    return presentSubscriber(updated);
  }

  /** Erases the identity of this subscriber, found by id (the dashboard's Erase button). */
  async erase(caller: Principal, id: string): Promise<ErasureReceipt> {
    const subscriber = await this.get(caller, id);
    return this.erasure.erase(caller, subscriber.email, 'identity.erased_from_dashboard');
  }

  // What other modules need of subscribers: rows to render mail with, and the unsubscribe
  // link. They take an account id rather than a caller: workers and signed links have none.

  /** A subscriber's row (merge fields for a template preview); null when there is none. */
  findRow(accountId: AccountId, id: string): Promise<Subscriber | null> {
    return isUuid(id) ? this.subscribers.findById(accountId, id) : Promise.resolve(null);
  }

  /** The rows of a chunk of campaign recipients (the send hot path); erased ones are missing. */
  findRows(accountId: AccountId, ids: string[]): Promise<Subscriber[]> {
    return this.subscribers.findByIds(accountId, ids);
  }

  /**
   * The normalised email of a subscriber, inside the caller's transaction; null once erased
   * (erasure deletes the row).
   */
  async emailOf(accountId: AccountId, id: string, tx: Db): Promise<string | null> {
    const row = await this.subscribers.findById(accountId, id, tx);
    return row?.emailNormalized ?? null;
  }

  /** The subscribers an address belongs to among these accounts (at most one each). */
  idsByEmail(
    accountIds: AccountId[],
    email: string,
  ): Promise<{ accountId: AccountId; subscriberId: string }[]> {
    return this.subscribers.idsByEmail(accountIds, normalizeEmail(email));
  }

  /** One page of an export: subscribers after `afterId` within a filter (SQL over `s`), oldest first. */
  exportPage(
    accountId: AccountId,
    filter: Prisma.Sql,
    afterId: string | null,
    limit: number,
  ): Promise<Subscriber[]> {
    return this.subscribers.exportPage(accountId, filter, afterId, limit);
  }

  /** The custom field keys in use within a filter, sorted (an export's extra columns). */
  customKeys(accountId: AccountId, filter: Prisma.Sql, limit: number): Promise<string[]> {
    return this.subscribers.customKeys(accountId, filter, limit);
  }

  /** The subscriber an address belongs to, inside the caller's transaction. */
  /** The account's subscriber with this email, in `tx` when given. */
  findByEmail(accountId: AccountId, email: string, tx?: Db): Promise<Subscriber | null> {
    return this.subscribers.findByEmail(accountId, normalizeEmail(email), tx);
  }

  /** An unsubscribe link was followed: idempotent, a no-op for someone erased meanwhile. */
  unsubscribe(accountId: AccountId, id: string): Promise<void> {
    return this.subscribers.unsubscribe(accountId, id);
  }

  /** See SubscribersRepository.reactivate: the suppression list's way back. */
  reactivate(
    accountId: AccountId,
    emailNormalized: string,
    fromStatus: string | undefined,
    tx: Db,
  ): Promise<boolean> {
    return this.subscribers.reactivate(accountId, emailNormalized, fromStatus, tx);
  }
}
