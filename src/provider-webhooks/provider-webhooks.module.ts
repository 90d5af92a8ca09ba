import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { FeedbackModule } from '../feedback/feedback.module';
import { ProviderWebhooksController } from './provider-webhooks.controller';
import { ProviderWebhooksService } from './provider-webhooks.service';
import { keepWebhookRawBodies } from './raw-body';
import { MailgunTokens } from './signature-window';
import { SnsCertificates } from './sns-certificates';

/** POST /webhooks/{ses,postmark,sendgrid,mailgun}: providers' bounce and complaint notifications. */
@Module({
  imports: [FeedbackModule],
  controllers: [ProviderWebhooksController],
  providers: [ProviderWebhooksService, SnsCertificates, MailgunTokens],
})
export class ProviderWebhooksModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify) keepWebhookRawBodies(fastify);
  }
}
