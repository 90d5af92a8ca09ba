import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsInt,
  IsISO8601,
  IsOptional,
  IsUUID,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { EmailAddress } from '../platform/validation/email-address.decorator';

/** The largest amount one conversion may carry: ten billion in the currency's main unit. */
export const MAX_AMOUNT_CENTS = 1_000_000_000_000;

/**
 * POST /v1/conversions: a purchase (or, negative, a refund) by a subscriber, named by email or
 * id, reported by the account's own systems.
 */
export class CreateConversionDto {
  @ApiPropertyOptional({ format: 'idn-email', description: 'The subscriber, by address.' })
  @IsOptional()
  @EmailAddress()
  email?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The subscriber, by id (or give email).' })
  @IsOptional()
  @IsUUID('all', { message: 'subscriber_id must be a subscriber id' })
  subscriber_id?: string;

  @ApiProperty({
    type: 'integer',
    example: 4999,
    description: 'In the currency’s minor unit; negative for a refund.',
  })
  @IsDefined()
  @IsInt()
  @Min(-MAX_AMOUNT_CENTS)
  @Max(MAX_AMOUNT_CENTS)
  amount_cents!: number;

  @ApiProperty({ example: 'EUR', description: 'ISO 4217 code, upper case.' })
  @IsDefined()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as EUR' })
  currency!: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'The campaign to credit; without it, the last campaign the subscriber clicked in the 7 days before occurred_at, if any.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'campaign_id must be a campaign id' })
  campaign_id?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'When it happened; default now.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'occurred_at must be an ISO 8601 date-time' })
  occurred_at?: string;
}

export class ConversionResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) subscriber_id!: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The campaign credited; null when none.',
  })
  campaign_id!: string | null;
  @ApiProperty({ type: 'integer' }) amount_cents!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: string;
}
