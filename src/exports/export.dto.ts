import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateExportDto {
  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "Export only this segment's subscribers; every subscriber without it.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  segment_id?: string | null;
}
