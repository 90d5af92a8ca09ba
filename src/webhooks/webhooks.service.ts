import { Inject, Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { isUuid, newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import { ACCOUNT_QUOTAS, QuotaExceededError } from '../platform/database/account-quota';
import { NotFoundError, ConflictError, ValidationFailedError } from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { privateAddressOf } from './webhook-address';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { EndpointColumns, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookPublisher } from './webhook-publisher';
import { newWebhookSecret, WebhookSecretBox } from './webhook-secret';
import { CreateWebhookDto, UpdateWebhookDto } from './webhook.dto';
import {
  CreatedWebhookResponse,
  presentDelivery,
  presentWebhook,
  WebhookDeliveryResponse,
  WebhookResponse,
} from './webhook.presenter';

const invalidUrl = (code: string, message: string) =>
  new ValidationFailedError([{ field: 'url', code, message }]);

/** Webhook endpoints of an account, their delivery logs, and manual retries. */
@Injectable()
export class WebhooksService {
  private readonly secrets: WebhookSecretBox;

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly publisher: WebhookPublisher,
    private readonly paginator: Paginator,
    private readonly audit: AuditLog,
  ) {
    this.secrets = new WebhookSecretBox(config.secret);
  }

  list(caller: Principal, query: ListQuery): Promise<Page<WebhookResponse>> {
    return this.paginator.list(caller.accountId, query, this.endpoints, presentWebhook);
  }

  async get(caller: Principal, id: string): Promise<WebhookResponse> {
    return presentWebhook(await this.find(caller.accountId, id));
  }

  /** The secret is generated here and shown in this answer only; the row keeps it sealed. */
  async create(caller: Principal, body: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    const url = await this.checkedUrl(body.url);
    const id = newId();
    const secret = newWebhookSecret();
    const columns: EndpointColumns = {
      url,
      events: body.events,
      description: body.description ?? null,
    };
    const row = await this.endpoints.create(
      caller.accountId,
      id,
      columns,
      this.secrets.seal(secret, id),
    );
    if (!row) {
      throw new QuotaExceededError(
        'url',
        `An account has at most ${ACCOUNT_QUOTAS.webhook_endpoints} webhook endpoints; delete one first.`,
      );
    }
    this.publisher.forget(caller.accountId);
    await this.audit.recordBy(caller, { action: 'webhook.created', metadata: { webhook_id: id } });
    return { ...presentWebhook(row), secret };
  }

  async update(caller: Principal, id: string, body: UpdateWebhookDto): Promise<WebhookResponse> {
    await this.find(caller.accountId, id);
    const changes: Partial<EndpointColumns> & { enabled?: boolean } = {};
    if (body.url !== undefined) changes.url = await this.checkedUrl(body.url);
    if (body.events !== undefined) changes.events = body.events;
    if (body.description !== undefined) changes.description = body.description;
    if (body.enabled !== undefined) changes.enabled = body.enabled;
    const row = await this.endpoints.update(caller.accountId, id, changes);
    if (!row) throw new NotFoundError('webhook');
    this.publisher.forget(caller.accountId);
    await this.audit.recordBy(caller, { action: 'webhook.updated', metadata: { webhook_id: id } });
    return presentWebhook(row);
  }

  async delete(caller: Principal, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.endpoints.delete(caller.accountId, id))) {
      throw new NotFoundError('webhook');
    }
    this.publisher.forget(caller.accountId);
    await this.audit.recordBy(caller, { action: 'webhook.deleted', metadata: { webhook_id: id } });
  }

  async deliveryLog(
    caller: Principal,
    id: string,
    query: ListQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    await this.find(caller.accountId, id);
    return this.paginator.page(
      caller.accountId,
      `webhook-deliveries:${id}`,
      query,
      (page) => this.deliveries.page(caller.accountId, id, page),
      presentDelivery,
    );
  }

  /** A new attempt at once, whatever became of the earlier ones. */
  async retry(caller: Principal, id: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    await this.find(caller.accountId, id);
    const delivery = isUuid(deliveryId)
      ? await this.deliveries.find(caller.accountId, id, deliveryId)
      : null;
    if (!delivery) throw new NotFoundError('delivery');
    if (
      delivery.payload === null ||
      !(await this.deliveries.retryNow(caller.accountId, id, deliveryId))
    ) {
      throw new ConflictError(
        'This delivery concerned an erased person: it can no longer be sent.',
      );
    }
    this.publisher.signal.emit('published');
    const after = await this.deliveries.find(caller.accountId, id, deliveryId);
    return presentDelivery(after ?? delivery);
  }

  private async find(accountId: AccountId, id: string) {
    const row = isUuid(id) ? await this.endpoints.findById(accountId, id) : null;
    if (!row) throw new NotFoundError('webhook');
    return row;
  }

  /**
   * An http(s) URL without credentials in it, whose host does not resolve to a private,
   * loopback or link-local address (unless WEBHOOK_ALLOW_PRIVATE). Checked again at every
   * delivery, since DNS can change after this.
   */
  private async checkedUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidUrl('invalid_url', 'url must be an absolute http or https URL.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw invalidUrl('invalid_url', 'url must be an http or https URL.');
    }
    if (url.username || url.password) {
      throw invalidUrl('invalid_url', 'url must not carry credentials; sign requests instead.');
    }
    if (!this.config.webhookAllowPrivate) {
      const address = await privateAddressOf(url.hostname);
      if (address) {
        throw invalidUrl(
          'private_address',
          `url resolves to a private, loopback or link-local address (${address}).`,
        );
      }
    }
    return url.href;
  }
}
