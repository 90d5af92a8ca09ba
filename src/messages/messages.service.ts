import { Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { ErasureGuard } from '../erasure/erasure-guard';
import { isUuid } from '../platform/crypto/ids';
import { NotFoundError } from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import type { MessageResponse, MessageSummary } from './message.dto';
import { MessageQuery, parseMessageFilters } from './message-filters';
import { MessageLog } from './message-log';
import { presentMessage, presentMessageSummary } from './message.presenter';
import { MessagesRepository } from './messages.repository';

/**
 * The message log as the API and the dashboard read it. A recipient is looked up by its
 * erasure hash (the index the search walks), never by comparing addresses; messages past
 * retention are not found even before the sweep deletes them.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly repository: MessagesRepository,
    private readonly log: MessageLog,
    private readonly erasureGuard: ErasureGuard,
    private readonly paginator: Paginator,
  ) {}

  list(caller: Principal, query: ListQuery & MessageQuery): Promise<Page<MessageSummary>> {
    const { accountId } = caller;
    const { recipient, ...filters } = parseMessageFilters(query);
    const recipientHash =
      recipient === undefined ? undefined : this.erasureGuard.emailHash(accountId, recipient);
    const keptAfter = this.log.keptAfter();
    return this.paginator.page(
      accountId,
      'messages',
      query,
      (request) =>
        this.repository.listPage(accountId, keptAfter, { ...filters, recipientHash }, request),
      presentMessageSummary,
    );
  }

  async get(caller: Principal, id: string): Promise<MessageResponse> {
    if (!isUuid(id)) throw new NotFoundError('message');
    const message = await this.repository.find(caller.accountId, id, this.log.keptAfter());
    if (!message) throw new NotFoundError('message');
    return presentMessage(message, message.events);
  }
}
