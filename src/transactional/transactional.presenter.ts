import { ApiProperty } from '@nestjs/swagger';
import { TransactionalMessage } from '../generated/prisma/client';

/** What clients see: `queued` covers a message a worker is sending right now. */
export type PublicStatus = 'queued' | 'sent' | 'failed';

export class TransactionalMessageResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['queued', 'sent', 'failed'] }) status!: PublicStatus;
  @ApiProperty({ type: String, nullable: true, description: 'Null once the recipient was erased.' })
  to!: string | null;
  @ApiProperty() from!: string;
  @ApiProperty({ type: String, nullable: true }) subject!: string | null;
  @ApiProperty({ type: String, nullable: true }) template_id!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The Message-ID header it was sent with.',
  })
  message_id!: string | null;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed, when it did.' })
  error!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sent_at!: string | null;
}

export function presentMessage(row: TransactionalMessage): TransactionalMessageResponse {
  return {
    id: row.id,
    status: row.status === 'sent' || row.status === 'failed' ? row.status : 'queued',
    to: row.toAddress,
    from: row.fromAddress,
    subject: row.subject,
    template_id: row.templateId,
    message_id: row.headerMessageId,
    attempts: row.attempts,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    sent_at: row.sentAt ? row.sentAt.toISOString() : null,
  };
}
