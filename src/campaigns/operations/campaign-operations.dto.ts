import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  registerDecorator,
  ValidationArguments,
} from 'class-validator';
import { parseIsoDate } from '../../platform/validation/calendar-date';

/** Test sends go to at most this many addresses at once. */
export const MAX_TEST_RECIPIENTS = 5;

/**
 * An instant written with its time and offset (`2026-12-01T09:00:00+01:00`, `…Z`): a send time
 * without an offset would mean a different moment on every server.
 */
function InstantWithOffset(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIso8601',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be a date-time with its offset, e.g. 2026-12-01T09:00:00+01:00`,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && /T.*(Z|[+-]\d{2}:\d{2})$/.test(value)
            ? parseIsoDate(value) !== undefined
            : false,
      },
    });
}

export class ScheduleCampaignDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-12-01T09:00:00+01:00',
    description:
      'When to start sending: a date-time with its offset, in the future and at most a year away.',
  })
  @IsDefined()
  @IsString()
  @MaxLength(64)
  @InstantWithOffset()
  send_at!: string;
}

export class TestSendDto {
  @ApiProperty({
    type: [String],
    example: ['me@acme.example'],
    description:
      'At most 5 addresses. Each gets the real rendering (with the data of the subscriber who has that address, if any), its subject prefixed with `[Test] `; stats and the send ledger are not touched.',
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1, { message: 'emails must name at least one address' })
  @ArrayMaxSize(MAX_TEST_RECIPIENTS)
  @IsString({ each: true })
  @MaxLength(254, { each: true })
  emails!: string[];
}

export class TestSendResult {
  @ApiProperty({ format: 'email' }) email!: string;
  @ApiProperty({
    enum: ['sent', 'failed'],
    description: 'sent: the relay accepted it (or it was written to the outbox).',
  })
  status!: 'sent' | 'failed';
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the relay refused it (addresses cut out); null when sent.',
  })
  error!: string | null;
}

export class TestSendResponse {
  @ApiProperty({ type: [TestSendResult], description: 'One per distinct address, in order.' })
  results!: TestSendResult[];
}

/** The dashboard's preview of a campaign, optionally as one subscriber will see it. */
export class PreviewCampaignDto {
  @IsOptional()
  @IsUUID('all', { message: 'subscriber_id must be a subscriber id' })
  subscriber_id?: string;
}
