import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from './webhook-event-types';

/** The longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;

const EVENTS_DOC: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  description: 'The events delivered to this endpoint (at least one).',
};

export class CreateWebhookDto {
  @ApiProperty({
    example: 'https://crm.example.com/herald-events',
    description: 'http(s); must not resolve to a private, loopback or link-local address.',
  })
  @IsDefined()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url!: string;

  @ApiProperty({ ...EVENTS_DOC, example: ['email.delivered', 'email.bounced'] })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: 'each event must be a known event type' })
  events!: WebhookEventType[];

  @ApiPropertyOptional({ example: 'CRM sync' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  description?: string;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'http(s); checked like at creation.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional(EVENTS_DOC)
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: 'each event must be a known event type' })
  events?: WebhookEventType[];

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  description?: string | null;

  @ApiPropertyOptional({
    description: 'true re-enables an endpoint that was disabled (and forgets why).',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
