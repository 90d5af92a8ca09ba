import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Mailbox } from '../../platform/validation/mailbox.decorator';
import { MAX_RATE_PER_MINUTE } from './send-pace';
import { Omittable } from '../../platform/validation/omittable.decorator';
import { ResourceName, ResourceRename } from '../../platform/validation/resource-name.decorator';

const MAX_BODY = 512 * 1024;

export class CreateCampaignDto {
  @ResourceName('November newsletter')
  name!: string;

  @ApiProperty({ example: 'News for {{first_name}}', description: 'Handlebars merge fields.' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @Matches(/^[^\r\n]*$/, { message: 'subject must be one line' })
  @MaxLength(998)
  subject!: string;

  @ApiProperty({ example: 'Acme <news@acme.example>' })
  @IsDefined()
  @IsString()
  @Mailbox()
  from!: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'Or html and/or text.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'template_id must be a template id' })
  template_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Handlebars HTML body, without template_id.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BODY)
  html?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Handlebars text body, without template_id.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BODY)
  text?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'Absent: every subscriber.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'segment_id must be a segment id' })
  segment_id?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 600,
    description:
      'Messages per minute for this campaign, as a steady pace after a first burst of at most 4; absent or null: only the account’s limit (SEND_RATE_PER_MINUTE).',
  })
  @IsOptional()
  @IsInt({ message: 'rate_per_minute must be a whole number of messages per minute' })
  @Min(1)
  @Max(MAX_RATE_PER_MINUTE)
  rate_per_minute?: number | null;
}

/**
 * PATCH (drafts and scheduled campaigns only): any field of the create body; `null` clears an
 * optional one.
 */
export class UpdateCampaignDto {
  @ResourceRename()
  name?: string;

  @ApiPropertyOptional()
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @Matches(/^[^\r\n]*$/, { message: 'subject must be one line' })
  @MaxLength(998)
  subject?: string;

  @ApiPropertyOptional()
  @Omittable()
  @IsString()
  @Mailbox()
  from?: string;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @IsOptional()
  @IsUUID('all', { message: 'template_id must be a template id' })
  template_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BODY)
  html?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BODY)
  text?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @IsOptional()
  @IsUUID('all', { message: 'segment_id must be a segment id' })
  segment_id?: string | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @IsOptional()
  @IsInt({ message: 'rate_per_minute must be a whole number of messages per minute' })
  @Min(1)
  @Max(MAX_RATE_PER_MINUTE)
  rate_per_minute?: number | null;
}
