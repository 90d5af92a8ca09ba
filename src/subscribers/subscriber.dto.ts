import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { EmailAddress } from '../platform/validation/email-address.decorator';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

const TEXT = 255;
const present = (_: object, value: unknown) => value !== undefined;

export class SocialMediaDto {
  @ApiProperty({ example: 'twitter' })
  @IsDefined()
  @IsString()
  @MaxLength(100)
  platform!: string;

  @ApiProperty({ example: 'ada' })
  @IsDefined()
  @IsString()
  @MaxLength(TEXT)
  profile_id!: string;
}

/**
 * The writable subscriber fields of SPEC §2 but email, all optional. `null` clears an optional
 * field. `id`, `created_at` and `updated_at` are accepted so a client can send back what it
 * read, and ignored: they are Herald's to set.
 */
export class SubscriberProfileDto {
  @ApiPropertyOptional({ description: 'Ignored: ids are assigned by Herald.' })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  first_name?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  last_name?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  phone?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  address1?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  address2?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  city?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  state?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  zip?: string | null;

  @ApiPropertyOptional({ nullable: true, example: 'GB' })
  @IsOptional()
  @IsString()
  @MaxLength(8)
  country_code?: string | null;

  @ApiPropertyOptional({ nullable: true, format: 'date-time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'birthdate must be an ISO 8601 date-time' })
  birthdate?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  gender?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  income_level?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  membership_status?: string | null;

  @ApiPropertyOptional({
    example: 'subscribed',
    description: 'Free-form; `unsubscribed` and `bounced` are never mailed by campaigns.',
  })
  @ValidateIf(present)
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  status?: string;

  @ApiPropertyOptional({ nullable: true, example: 'Europe/London' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timezone?: string | null;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  interests?: string[] | null;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  tags?: string[] | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  custom_fields?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: [SocialMediaDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => SocialMediaDto)
  social_media?: SocialMediaDto[] | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Free-form statistics to keep with the subscriber (e.g. imported ones).',
  })
  @IsOptional()
  @IsObject()
  statistics?: Record<string, unknown> | null;

  @ApiPropertyOptional({ description: 'Ignored: set by Herald.' })
  @IsOptional()
  @IsString()
  created_at?: string;

  @ApiPropertyOptional({ description: 'Ignored: set by Herald.' })
  @IsOptional()
  @IsString()
  updated_at?: string;
}

export class CreateSubscriberDto extends SubscriberProfileDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  @IsDefined()
  @EmailAddress()
  email!: string;
}

/** PATCH: every field optional, email included. */
export class UpdateSubscriberDto extends SubscriberProfileDto {
  @ApiPropertyOptional({ format: 'email', example: 'ada@example.com' })
  @ValidateIf(present)
  @EmailAddress()
  email?: string;
}
