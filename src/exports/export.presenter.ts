import { ApiProperty } from '@nestjs/swagger';
import { SubscriberExport } from '../generated/prisma/client';

export class ExportAccepted {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['queued'] }) status!: 'queued';
}

export class ExportResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    enum: ['queued', 'running', 'done', 'failed', 'expired'],
    description: '`done`: ready to download until `expires_at`; `expired`: the file is gone.',
  })
  status!: string;
  @ApiProperty({ type: 'integer', description: 'Subscribers written so far.' }) rows!: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) segment_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) failure_reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at!: string | null;
}

export function presentExport(row: SubscriberExport): ExportResponse {
  return {
    id: row.id,
    status: row.status,
    rows: row.rows,
    segment_id: row.segmentId,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}
