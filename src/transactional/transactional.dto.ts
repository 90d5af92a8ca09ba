import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { EmailAddress } from '../platform/validation/email-address.decorator';
import { JsonObject } from '../platform/validation/json-object.decorator';
import { Mailbox } from '../platform/validation/mailbox.decorator';

/** Bodies stay well inside the 1 MiB request limit. */
const MAX_BODY = 512 * 1024;
/** Required without a template; checked whenever given (ValidateIf gates every rule below it). */
const subjectApplies = (body: SendTransactionalDto) =>
  body.template_id == null || body.subject !== undefined;

/**
 * POST /v1/transactional/send. The content is either inline (html and/or text)
 * or a stored template rendered with `data` over the recipient's subscriber fields; `subject`
 * may then be left out (the template's own is used) or given to replace it.
 */
export class SendTransactionalDto {
  @ApiProperty({ format: 'idn-email', example: 'ada@example.com' })
  @IsDefined()
  @EmailAddress()
  to!: string;

  @ApiProperty({
    example: 'Acme <hello@acme.test>',
    description: 'An address, or `Name <address>`.',
  })
  @IsDefined()
  @Mailbox()
  from!: string;

  @ApiPropertyOptional({
    example: 'Your receipt',
    description: 'Required without template_id; with one, replaces the template subject.',
  })
  @ValidateIf(subjectApplies)
  @IsDefined()
  @IsString()
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must be a single line' })
  subject?: string;

  @ApiPropertyOptional({ description: 'HTML body. Give html, text, or both; or template_id.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BODY)
  html?: string;

  @ApiPropertyOptional({ description: 'Plain-text body.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BODY)
  text?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'A template of this account, instead of html/text.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'template_id must be a template id' })
  template_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Merge variables for the template; they win over the subscriber’s fields.',
  })
  @IsOptional()
  @JsonObject()
  data?: Record<string, unknown>;
}

export class TransactionalAcceptedResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['queued'] }) status!: 'queued';
}
