import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { JsonObject } from '../platform/validation/json-object.decorator';
import { Omittable } from '../platform/validation/omittable.decorator';
import { ResourceName, ResourceRename } from '../platform/validation/resource-name.decorator';

// RFC 5322 caps a header line at 998 characters.
const SUBJECT = 998;
const BODY = 512 * 1024;

const MERGE_FIELDS =
  'Handlebars: `{{first_name}}`, any subscriber field or custom field key, `{{#if}}`, ' +
  '`{{#each}}`, `{{#with}}`, `{{lookup}}`. A missing variable renders empty.';

export class CreateTemplateDto {
  @ResourceName('Welcome')
  name!: string;

  @ApiProperty({ example: 'Welcome, {{first_name}}!', description: MERGE_FIELDS })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(SUBJECT)
  subject!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '<p>Hi {{first_name}}</p>',
    description: `HTML body; merged values are HTML-escaped. ${MERGE_FIELDS} html, text or both.`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(BODY)
  html?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Hi {{first_name}}',
    description: `Plain-text body. ${MERGE_FIELDS} html, text or both.`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(BODY)
  text?: string | null;
}

/** PATCH: any field; `null` clears html or text as long as the other remains. */
export class UpdateTemplateDto {
  @ResourceRename()
  name?: string;

  @ApiPropertyOptional({ description: MERGE_FIELDS })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(SUBJECT)
  subject?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(BODY)
  html?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(BODY)
  text?: string | null;
}

export class PreviewTemplateDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { first_name: 'Ada' },
    description: 'Sample merge variables; they win over the subscriber fields.',
  })
  @IsOptional()
  @JsonObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Render against this subscriber of the account.' })
  @IsOptional()
  @IsUUID('all', { message: 'subscriber_id must be a subscriber id' })
  subscriber_id?: string;
}

export class RenderedTemplateResponse {
  @ApiProperty() subject!: string;
  @ApiProperty({ type: String, nullable: true }) html!: string | null;
  @ApiProperty({ type: String, nullable: true }) text!: string | null;
}
