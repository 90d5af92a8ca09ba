import { Injectable } from '@nestjs/common';
import { Prisma, Subscriber } from '../generated/prisma/client';
import { Principal } from '../auth/principal';
import { ErasureGuard } from '../erasure/erasure-guard';
import { ErasureService } from '../erasure/erasure.service';
import { isUuid, newId } from '../platform/crypto/ids';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import {
  EmailErasedError,
  NotFoundError,
  ValidationFailedError,
} from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { CreateSubscriberDto, UpdateSubscriberDto } from './subscriber.dto';
import { presentSubscriber, SubscriberResponse } from './subscriber.presenter';
import { toColumns } from './subscriber-columns';
import { FeedbackEffect, SubscribersRepository } from './subscribers.repository';
import { SuppressionList } from '../suppression/suppression-list';
import { FeedbackKind } from '../feedback/feedback-report';

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
    private readonly paginator: Paginator,
    private readonly suppressions: SuppressionList,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<SubscriberResponse>> {
    return this.paginator.page(
      caller.accountId,
      'subscribers',
      query,
      (page) => this.subscribers.listPage(caller.accountId, page),
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
        return this.subscribers.create(accountId, newId(), columns, tx);
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
        const row = await this.subscribers.update(accountId, id, columns, tx);
        // Gone between the read and the lock: only an erasure deletes subscribers.
        if (!row) throw new EmailErasedError();
        return row;
      },
    );
    return presentSubscriber(updated);
  }

  /** See SubscribersRepository.reactivate: the suppression list's way back. */
  reactivate(
    accountId: string,
    emailNormalized: string,
    fromStatus: string | undefined,
    tx: Prisma.TransactionClient,
  ): Promise<boolean> {
    return this.subscribers.reactivate(accountId, emailNormalized, fromStatus, tx);
  }

  /** See SubscribersRepository.applyFeedback: a bounce, complaint or unsubscribe report. */
  applyFeedback(
    accountId: string,
    id: string,
    kind: FeedbackKind,
    tx: Prisma.TransactionClient,
  ): Promise<FeedbackEffect | undefined> {
    return this.subscribers.applyFeedback(accountId, id, kind, tx);
  }

  /** The subscriber with this address, inside the caller's transaction. */
  findByEmail(
    accountId: string,
    emailNormalized: string,
    tx: Prisma.TransactionClient,
  ): Promise<Subscriber | null> {
    return this.subscribers.findByEmail(accountId, emailNormalized, tx);
  }

  /** The row itself, for modules acting for the person (the subscription pages). */
  findRow(accountId: string, id: string): Promise<Subscriber | null> {
    return this.subscribers.findById(accountId, id);
  }
}
