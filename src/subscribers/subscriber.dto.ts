import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { CalendarDate } from '../platform/validation/calendar-date.decorator';
import { EmailAddress } from '../platform/validation/email-address.decorator';
import { JsonObject } from '../platform/validation/json-object.decorator';
import { ProfileFieldName, textField } from './subscriber-fields';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { Omittable } from '../platform/validation/omittable.decorator';
import { CUSTOM_FIELDS, STATISTICS } from './subscriber-limits';

const TEXT = 255;
const LIST_ITEMS = 100;
const LIST_ITEM_LENGTH = 100;

/** A free-text profile field as the table says: optional, null clears it, at most its length. */
function ProfileText(name: ProfileFieldName, extra: { example?: string } = {}) {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, ...extra }),
    IsOptional(),
    IsString(),
    MaxLength(textField(name).maxLength),
  );
}

/** A list profile field (interests, tags): optional, null clears it, short strings, bounded. */
function ProfileList() {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], nullable: true }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(LIST_ITEMS),
    IsString({ each: true }),
    MaxLength(LIST_ITEM_LENGTH, { each: true }),
  );
}

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
 * The writable subscriber fields but email, all optional. `null` clears an optional
 * field. `id`, `created_at` and `updated_at` are accepted so a client can send back what it
 * read, and ignored: they are Herald's to set.
 */
export class SubscriberProfileDto {
  @ApiPropertyOptional({ description: 'Ignored: ids are assigned by Herald.' })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  id?: string;

  @ProfileText('first_name')
  first_name?: string | null;

  @ProfileText('last_name')
  last_name?: string | null;

  @ProfileText('phone')
  phone?: string | null;

  @ProfileText('address1')
  address1?: string | null;

  @ProfileText('address2')
  address2?: string | null;

  @ProfileText('city')
  city?: string | null;

  @ProfileText('state')
  state?: string | null;

  @ProfileText('zip')
  zip?: string | null;

  @ProfileText('country_code', { example: 'GB' })
  country_code?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'A date (`1990-05-01`) or a date-time with offset, from 1900-01-01 to today.',
  })
  @IsOptional()
  @CalendarDate({ from: '1900-01-01', until: 'today' })
  birthdate?: string | null;

  @ProfileText('gender')
  gender?: string | null;

  @ProfileText('income_level')
  income_level?: string | null;

  @ProfileText('membership_status')
  membership_status?: string | null;

  @ApiPropertyOptional({
    example: 'subscribed',
    description: 'Free-form; `unsubscribed` and `bounced` are never mailed by campaigns.',
  })
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(textField('status').maxLength)
  status?: string;

  @ProfileText('timezone', { example: 'Europe/London' })
  timezone?: string | null;

  @ProfileList()
  interests?: string[] | null;

  @ProfileList()
  tags?: string[] | null;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'At most 100 keys and 16 KiB as JSON.',
  })
  @IsOptional()
  @JsonObject(CUSTOM_FIELDS)
  custom_fields?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: [SocialMediaDto], nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => SocialMediaDto)
  social_media?: SocialMediaDto[] | null;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description:
      'Free-form statistics to keep with the subscriber (e.g. imported ones): at most 100 ' +
      'keys and 16 KiB as JSON.',
  })
  @IsOptional()
  @JsonObject(STATISTICS)
  statistics?: Record<string, unknown> | null;

  @ApiPropertyOptional({ description: 'Ignored: set by Herald.' })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  created_at?: string;

  @ApiPropertyOptional({ description: 'Ignored: set by Herald.' })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  updated_at?: string;
}

export class CreateSubscriberDto extends SubscriberProfileDto {
  @ApiProperty({ format: 'idn-email', example: 'ada@example.com' })
  @IsDefined()
  @EmailAddress()
  email!: string;
}

/** PATCH: every field optional, email included. */
export class UpdateSubscriberDto extends SubscriberProfileDto {
  @ApiPropertyOptional({ format: 'idn-email', example: 'ada@example.com' })
  @Omittable()
  @EmailAddress()
  email?: string;
}
