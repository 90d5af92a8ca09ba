import { ApiProperty } from '@nestjs/swagger';
import { WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client';
import { WEBHOOK_EVENT_TYPES } from './webhook-event-types';

export class WebhookResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } })
  events!: string[];
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ description: 'False once disabled (by hand, or after failing for 5 days).' })
  enabled!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Why it was disabled.' })
  disabled_reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class CreatedWebhookResponse extends WebhookResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret (Standard Webhooks). Shown only here, once.',
  })
  secret!: string;
}

export class WebhookPage {
  @ApiProperty({ type: [WebhookResponse] }) data!: WebhookResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The webhook-id header: the same on every attempt.' })
  event_id!: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENT_TYPES] }) type!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Of the last attempt.' })
  response_status!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Of the last attempt.' })
  latency_ms!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt failed.' })
  error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class WebhookDeliveryPage {
  @ApiProperty({ type: [WebhookDeliveryResponse] }) data!: WebhookDeliveryResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export function presentWebhook(row: WebhookEndpoint): WebhookResponse {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentDelivery(
  row: Pick<
    WebhookDelivery,
    | 'id'
    | 'eventId'
    | 'type'
    | 'status'
    | 'attempts'
    | 'responseStatus'
    | 'latencyMs'
    | 'lastError'
    | 'nextAttemptAt'
    | 'createdAt'
  >,
): WebhookDeliveryResponse {
  return {
    id: row.id,
    event_id: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    latency_ms: row.latencyMs,
    error: row.lastError,
    next_attempt_at: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    created_at: row.createdAt.toISOString(),
  };
}
