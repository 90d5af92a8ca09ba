import { ApiProperty } from '@nestjs/swagger';
import { Subscriber } from '../generated/prisma/client';
import { SocialMediaDto } from './subscriber.dto';
import { PROFILE_FIELDS, ProfileField, ProfileFieldName } from './subscriber-fields';

export class SubscriberStatisticsDto {
  @ApiProperty({ type: 'integer' }) sent!: number;
  @ApiProperty({ type: 'integer' }) delivered!: number;
  @ApiProperty({ type: 'integer' }) opens!: number;
  @ApiProperty({ type: 'integer' }) clicks!: number;
  @ApiProperty({ type: 'integer' }) hard_bounces!: number;
  @ApiProperty({ type: 'integer' }) soft_bounces!: number;
  @ApiProperty({ type: 'integer' }) revenue_cents!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_sent_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_open_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_click_at!: string | null;
}

/** A subscriber as the API returns it, statistics as the fixed object. */
export class SubscriberResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'idn-email' }) email!: string;
  @ApiProperty({ type: String, nullable: true }) first_name!: string | null;
  @ApiProperty({ type: String, nullable: true }) last_name!: string | null;
  @ApiProperty({ type: String, nullable: true }) phone!: string | null;
  @ApiProperty({ type: String, nullable: true }) address1!: string | null;
  @ApiProperty({ type: String, nullable: true }) address2!: string | null;
  @ApiProperty({ type: String, nullable: true }) city!: string | null;
  @ApiProperty({ type: String, nullable: true }) state!: string | null;
  @ApiProperty({ type: String, nullable: true }) zip!: string | null;
  @ApiProperty({ type: String, nullable: true }) country_code!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) birthdate!: string | null;
  @ApiProperty({ type: String, nullable: true }) gender!: string | null;
  @ApiProperty({ type: String, nullable: true }) income_level!: string | null;
  @ApiProperty({ type: String, nullable: true }) membership_status!: string | null;
  @ApiProperty() status!: string;
  @ApiProperty({ type: String, nullable: true }) timezone!: string | null;
  @ApiProperty({ type: [String] }) interests!: string[];
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ type: 'object', additionalProperties: true }) custom_fields!: object;
  @ApiProperty({ type: [SocialMediaDto] }) social_media!: SocialMediaDto[];
  @ApiProperty({ type: SubscriberStatisticsDto }) statistics!: SubscriberStatisticsDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class SubscriberPage {
  @ApiProperty({ type: [SubscriberResponse] }) data!: SubscriberResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

type ProfileValues = Pick<SubscriberResponse, ProfileFieldName>;

/** A profile field as the API shows it: dates as ISO text, the rest as stored. */
function presentField(field: ProfileField, row: Subscriber): unknown {
  return field.kind === 'date' ? iso(row[field.prop] as Date | null) : row[field.prop];
}

export function presentSubscriber(row: Subscriber): SubscriberResponse {
  return {
    id: row.id,
    email: row.email,
    ...(Object.fromEntries(
      PROFILE_FIELDS.map((field) => [field.name, presentField(field, row)]),
    ) as ProfileValues),
    statistics: {
      sent: row.statSent,
      delivered: row.statDelivered,
      opens: row.statOpens,
      clicks: row.statClicks,
      hard_bounces: row.statHardBounces,
      soft_bounces: row.statSoftBounces,
      revenue_cents: Number(row.statRevenueCents),
      last_sent_at: iso(row.lastSentAt),
      last_open_at: iso(row.lastOpenAt),
      last_click_at: iso(row.lastClickAt),
    },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
