import { ApiProperty } from '@nestjs/swagger';
import { SubscriberImport } from '../generated/prisma/client';
import type { ImportRowError } from './imports.repository';

export class ImportAccepted {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['queued'] }) status!: 'queued';
}

export class ImportErrorDto {
  @ApiProperty({ type: 'integer', description: 'The data row, counting from 1 after the header.' })
  row!: number;
  @ApiProperty({
    example: 'email',
    description: 'The subscriber field (`row` when the row itself could not be read).',
  })
  field!: string;
  @ApiProperty() message!: string;
}

export class ImportColumnDto {
  @ApiProperty() header!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'first_name',
    description: 'The subscriber field, `custom_fields.<key>`, or null when the column is skipped.',
  })
  field!: string | null;
}

export class ImportResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['queued', 'running', 'done', 'failed'] }) status!: string;
  @ApiProperty({ enum: ['upsert', 'create'] }) mode!: string;
  @ApiProperty({ type: [ImportColumnDto] }) columns!: ImportColumnDto[];
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Data rows in the file; null until a worker has counted them.',
  })
  rows_total!: number | null;
  @ApiProperty({ type: 'integer' }) rows_processed!: number;
  @ApiProperty({ type: 'integer' }) created!: number;
  @ApiProperty({ type: 'integer' }) updated!: number;
  @ApiProperty({ type: 'integer' }) unchanged!: number;
  @ApiProperty({ type: 'integer' }) skipped_erased!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
  @ApiProperty({
    type: [ImportErrorDto],
    description: 'The first 1,000 row errors; all of them: GET /v1/imports/{id}/errors (CSV).',
  })
  errors!: ImportErrorDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Why the import as a whole failed.' })
  failure_reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

export function presentImport(row: SubscriberImport, errors: ImportRowError[]): ImportResponse {
  const plan = row.columns as unknown as { columns?: { header: string; target: string | null }[] };
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    columns: (plan.columns ?? []).map(({ header, target }) => ({ header, field: target })),
    rows_total: row.rowsTotal,
    rows_processed: row.rowsProcessed,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    skipped_erased: row.skippedErased,
    failed: row.failed,
    errors,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}
