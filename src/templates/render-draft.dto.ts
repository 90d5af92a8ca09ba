import { IsDefined, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { JsonObject } from '../platform/validation/json-object.decorator';

/** Unsaved template content, rendered as the dashboard's editor types (the live preview). */
export class RenderDraftDto {
  @IsDefined()
  @IsString()
  @MaxLength(998)
  subject!: string;

  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  html?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  text?: string | null;

  /** Sample merge variables; they win over the subscriber's own fields. */
  @IsOptional()
  @JsonObject()
  data?: Record<string, unknown>;

  @IsOptional()
  @IsUUID('all', { message: 'subscriber_id must be a subscriber id' })
  subscriber_id?: string;
}
