import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional } from 'class-validator';
import { EmailAddress } from '../platform/validation/email-address.decorator';
import { SUPPRESSION_REASONS } from './suppression-reason';

export class AddSuppressionDto {
  @ApiProperty({ format: 'idn-email', example: 'ada@example.com' })
  @IsDefined()
  @EmailAddress()
  email!: string;

  /** The other reasons are Herald's own (bounces, complaints, unsubscribes). */
  @ApiPropertyOptional({ enum: ['manual'], default: 'manual' })
  @IsOptional()
  @IsIn(['manual'], { message: 'reason must be "manual"; the other reasons are set by Herald.' })
  reason?: 'manual';
}

export class SuppressionResponse {
  @ApiProperty({ description: 'The normalised (lower-cased, trimmed) address.' })
  email!: string;
  @ApiProperty({ enum: SUPPRESSION_REASONS }) reason!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class SuppressionPage {
  @ApiProperty({ type: [SuppressionResponse] }) data!: SuppressionResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}
