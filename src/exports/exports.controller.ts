import { Body, Controller, Get, HttpCode, Param, Post, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { CreateExportDto } from './export.dto';
import { ExportAccepted, ExportResponse } from './export.presenter';
import { ExportsService } from './exports.service';

/** CSV exports of subscribers, for API keys (/v1) and the dashboard (/dashboard/api). */
@ApiTags('exports')
@Controller(['v1/exports', 'dashboard/api/exports'])
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  @Post()
  @HttpCode(202)
  @ApiEndpoint({
    id: 'createExport',
    summary: 'Export subscribers as CSV',
    description:
      "Every subscriber, or one segment's; a worker writes the file. Download it from " +
      '`GET /v1/exports/{id}/download` once `status` is `done` (for 24 hours). Its columns ' +
      'are the subscriber fields and one per `custom_fields` key: importing the file ' +
      'gives back the same subscribers.',
    success: { status: 202, type: ExportAccepted },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateExportDto) {
    return this.exports.create(caller, body.segment_id);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getExport',
    summary: "Get an export's progress",
    success: { status: 200, type: ExportResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.exports.get(caller, id);
  }

  @Get(':id/download')
  @ApiEndpoint({
    id: 'downloadExport',
    summary: 'Download an export',
    description: 'The CSV, once the export is done; 409 before that and once it has expired.',
    success: { status: 200, description: 'The CSV file.', mediaType: 'text/csv' },
    errors: [404, 409],
  })
  async download(@Caller() caller: Principal, @Param('id') id: string) {
    const file = await this.exports.download(caller, id);
    return new StreamableFile(file, {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="subscribers-${id}.csv"`,
    });
  }
}
