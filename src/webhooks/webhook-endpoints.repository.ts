import { Injectable } from '@nestjs/common';
import { WebhookEndpoint } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

export interface EndpointColumns {
  url: string;
  events: string[];
  description: string | null;
}

/** webhook_endpoints and its writer (the dispatcher moves only the health columns). */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(accountId: AccountId, id: string, columns: EndpointColumns, secretSealed: string) {
    return this.prisma.webhookEndpoint.create({
      data: { id, accountId, ...columns, secretSealed },
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

  async delete(accountId: AccountId, id: string): Promise<boolean> {
    const { count } = await this.prisma.webhookEndpoint.deleteMany({ where: { accountId, id } });
    return count === 1;
  }
}
