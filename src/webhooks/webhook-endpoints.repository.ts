import { Injectable } from '@nestjs/common';
import { WebhookEndpoint } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { ACCOUNT_QUOTAS, lockQuota } from '../platform/database/account-quota';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../platform/pagination/page-request';

export interface EndpointColumns {
  url: string;
  events: string[];
  description: string | null;
}

/** webhook_endpoints and its writer (the dispatcher moves only the health columns). */
@Injectable()
export class WebhookEndpointsRepository implements KeysetListing<WebhookEndpoint> {
  readonly listName = 'webhooks';

  constructor(private readonly prisma: PrismaService) {}

  /** The new endpoint, or undefined when the account already has its quota of them. */
  create(
    accountId: AccountId,
    id: string,
    columns: EndpointColumns,
    secretSealed: string,
  ): Promise<WebhookEndpoint | undefined> {
    return this.prisma.$transaction(async (tx) => {
      await lockQuota(tx, accountId, 'webhook_endpoints');
      const held = await tx.webhookEndpoint.count({ where: { accountId } });
      if (held >= ACCOUNT_QUOTAS.webhook_endpoints) return undefined;
      return tx.webhookEndpoint.create({ data: { id, accountId, ...columns, secretSealed } });
    });
  }

  listPage(accountId: AccountId, page: PageRequest): Promise<WebhookEndpoint[]> {
    return this.prisma.webhookEndpoint.findMany(keysetPage(accountId, page));
  }

  findById(accountId: AccountId, id: string): Promise<WebhookEndpoint | null> {
    return this.prisma.webhookEndpoint.findFirst({ where: { accountId, id } });
  }

  async update(
    accountId: AccountId,
    id: string,
    changes: Partial<EndpointColumns> & { enabled?: boolean },
  ): Promise<WebhookEndpoint | null> {
    const reenable = changes.enabled === true ? { disabledReason: null, failingSince: null } : {};
    const disable = changes.enabled === false ? { disabledReason: 'Disabled by hand.' } : {};
    const { count } = await this.prisma.webhookEndpoint.updateMany({
      where: { accountId, id },
      data: { ...changes, ...reenable, ...disable },
    });
    return count === 1 ? this.findById(accountId, id) : null;
  }

  /** The endpoint and its deliveries (no foreign key does it: see the schema). */
  async delete(accountId: AccountId, id: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookEndpoint.deleteMany({ where: { accountId, id } });
      if (count === 1)
        await tx.webhookDelivery.deleteMany({ where: { accountId, endpointId: id } });
      return count === 1;
    });
  }
}
