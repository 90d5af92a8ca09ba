import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_TYPES, MESSAGE_SOURCES, MESSAGE_STATUSES } from './messages.repository';

export class MessageEventResponse {
  @ApiProperty({ enum: EVENT_TYPES }) type!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiPropertyOptional({ type: Number, description: 'The SMTP reply code, when there was one.' })
  smtp_code?: number;
  @ApiPropertyOptional({ description: 'The SMTP reply, or why the message failed.' })
  reason?: string;
  @ApiPropertyOptional({ description: 'The link clicked.' }) url?: string;
  @ApiPropertyOptional({ description: 'An open or click made by a machine (scanner, proxy).' })
  machine?: boolean;
}

export class MessageSummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The Message-ID header.' })
  message_id!: string | null;
  @ApiProperty({ enum: MESSAGE_SOURCES }) source!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) campaign_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) automation_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  automation_run_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) subscriber_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Null once the identity is erased.' })
  recipient!: string | null;
  @ApiProperty() from!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null once the identity is erased.' })
  subject!: string | null;
  @ApiProperty({ enum: MESSAGE_STATUSES }) status!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class MessageResponse extends MessageSummary {
  @ApiProperty({ type: [MessageEventResponse], description: 'Oldest first.' })
  events!: MessageEventResponse[];
}

export class MessagePage {
  @ApiProperty({ type: [MessageSummary] }) data!: MessageSummary[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}
