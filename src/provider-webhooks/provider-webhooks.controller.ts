import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator';
import { Provider } from './provider-event';
import { NotificationReceipt, ProviderWebhooksService } from './provider-webhooks.service';

/**
 * Where mail providers post bounce and complaint notifications: outside /v1, without an API
 * key (each is verified as its provider documents), in each provider's own content type.
 */
@ApiExcludeController()
// Providers post many accounts' notifications from a few addresses: the larger budget.
@Public({ perAddressLimit: 'mailAgents' })
@Controller('webhooks')
export class ProviderWebhooksController {
  constructor(private readonly webhooks: ProviderWebhooksService) {}

  @Post('ses')
  @HttpCode(200)
  ses(@Req() request: FastifyRequest) {
    return this.receive('ses', request);
  }

  @Post('postmark')
  @HttpCode(200)
  postmark(@Req() request: FastifyRequest) {
    return this.receive('postmark', request);
  }

  @Post('sendgrid')
  @HttpCode(200)
  sendgrid(@Req() request: FastifyRequest) {
    return this.receive('sendgrid', request);
  }

  @Post('mailgun')
  @HttpCode(200)
  mailgun(@Req() request: FastifyRequest) {
    return this.receive('mailgun', request);
  }

  private receive(provider: Provider, request: FastifyRequest): Promise<NotificationReceipt> {
    return this.webhooks.receive(provider, {
      headers: request.headers,
      body: request.body,
      raw: Buffer.concat(request.webhookRawBody ?? []),
    });
  }
}
