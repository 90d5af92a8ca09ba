import { ApiProperty } from '@nestjs/swagger';
import { Campaign } from '../generated/prisma/client';

export class CampaignResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() subject!: string;
  @ApiProperty() from!: string;
  @ApiProperty({ nullable: true }) template_id!: string | null;
  @ApiProperty({ nullable: true }) segment_id!: string | null;
  @ApiProperty({ enum: ['draft', 'sending', 'sent', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class CampaignPage {
  @ApiProperty({ type: [CampaignResponse] }) data!: CampaignResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export function presentCampaign(row: Campaign): CampaignResponse {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    from: row.fromAddress,
    template_id: row.templateId,
    segment_id: row.segmentId,
    status: row.status,
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
