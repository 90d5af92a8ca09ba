import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateWebhookDto, UpdateWebhookDto } from './webhook.dto';
import {
  CreatedWebhookResponse,
  WebhookDeliveryPage,
  WebhookDeliveryResponse,
  WebhookPage,
  WebhookResponse,
} from './webhook.presenter';
import { WebhooksService } from './webhooks.service';

/** Outbound webhook endpoints, on /v1 and for the dashboard. */
@ApiTags('webhooks')
@Controller(['v1/webhooks', 'dashboard/api/webhooks'])
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listWebhooks',
    summary: 'List webhook endpoints',
    success: { status: 200, type: WebhookPage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.webhooks.list(caller, query);
  }

  @Post()
  @ApiEndpoint({
    id: 'createWebhook',
    summary: 'Create a webhook endpoint',
    description:
      'Answers with the signing secret, shown this once. Deliveries follow the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature), at least once, retried with backoff for about a day; an endpoint failing for 5 days is disabled. A URL resolving to a private address → 422 on url.',
    success: { status: 201, type: CreatedWebhookResponse },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(caller, body);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getWebhook',
    summary: 'Get a webhook endpoint',
    success: { status: 200, type: WebhookResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.webhooks.get(caller, id);
  }

  @Patch(':id')
  @ApiEndpoint({
    id: 'updateWebhook',
    summary: 'Update a webhook endpoint',
    description: '`enabled: true` re-enables an endpoint that was disabled.',
    success: { status: 200, type: WebhookResponse },
    errors: [404, 422],
  })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'deleteWebhook',
    summary: 'Delete a webhook endpoint',
    success: { status: 204, description: 'Deleted, with its pending deliveries.' },
    errors: [404],
  })
  async delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    await this.webhooks.delete(caller, id);
  }

  @Get(':id/deliveries')
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listWebhookDeliveries',
    summary: "List a webhook endpoint's deliveries",
    description: 'Newest first: status, attempts, the last response and latency, the next attempt.',
    success: { status: 200, type: WebhookDeliveryPage },
    errors: [404],
  })
  deliveries(@Caller() caller: Principal, @Param('id') id: string, @Query() query: ListQuery) {
    return this.webhooks.deliveryLog(caller, id, query);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiEndpoint({
    id: 'retryWebhookDelivery',
    summary: 'Retry a webhook delivery now',
    description:
      'A new attempt at once (with the same webhook-id). 409 for a delivery about a person erased since.',
    success: { status: 202, type: WebhookDeliveryResponse },
    errors: [404, 409],
  })
  retry(
    @Caller() caller: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ) {
    return this.webhooks.retry(caller, id, deliveryId);
  }
}
