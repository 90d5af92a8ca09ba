import { ApiProperty } from '@nestjs/swagger';
import { Template } from '../generated/prisma/client';

export class TemplateResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() subject!: string;
  @ApiProperty({ type: String, nullable: true }) html!: string | null;
  @ApiProperty({ type: String, nullable: true }) text!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class TemplatePage {
  @ApiProperty({ type: [TemplateResponse] }) data!: TemplateResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export function presentTemplate(row: Template): TemplateResponse {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    html: row.html,
    text: row.text,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
