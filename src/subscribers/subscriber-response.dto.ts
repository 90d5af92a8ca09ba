import { ApiProperty } from '@nestjs/swagger';
import { SocialMediaDto } from './subscriber.dto';

// A subscriber as the API answers it, described for the OpenAPI document; presentSubscriber
// (subscriber.presenter.ts) makes one. Apart from it because worker processes present
// subscribers too (webhook payloads, template variables) and need none of these decorators.

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
