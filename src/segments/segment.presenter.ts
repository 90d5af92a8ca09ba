import { ApiProperty } from '@nestjs/swagger';
import { Segment } from '../generated/prisma/client';

export class SegmentResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) filter!: object;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

/** A single segment also says how many subscribers match it right now. */
export class SegmentWithCountResponse extends SegmentResponse {
  @ApiProperty({
    type: 'integer',
    description: 'Subscribers matching the filter now, whatever their status.',
  })
  count!: number;
}

export class SegmentPage {
  @ApiProperty({ type: [SegmentResponse] }) data!: SegmentResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export function presentSegment(row: Segment): SegmentResponse {
  return {
    id: row.id,
    name: row.name,
    filter: row.filter as object,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentSegmentWithCount(row: Segment, count: number): SegmentWithCountResponse {
  return { ...presentSegment(row), count };
}
