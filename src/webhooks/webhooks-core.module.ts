import { Module } from '@nestjs/common';
import { WebhookPublisher } from './webhook-publisher';

/**
 * The way events get into outbound webhooks (WebhookPublisher), for every module that records
 * something an event reports. It depends on nothing but the database, so any module may use it.
 */
@Module({ providers: [WebhookPublisher], exports: [WebhookPublisher] })
export class WebhooksCoreModule {}
