import { Controller, Get, HttpCode, Param, Post, Req, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { ImportAccepted, ImportResponse } from './import.presenter';
import { ImportsService } from './imports.service';

/** CSV imports of subscribers, for API keys (/v1) and the dashboard (/dashboard/api). */
@ApiTags('imports')
@Controller(['v1/imports', 'dashboard/api/imports'])
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Post()
  @HttpCode(202)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description:
            'The CSV, at most 100 MB, with a header row. Columns named like a subscriber field ' +
            '(`email`, `first_name`, `First Name`, `tags`…) fill it; any other column becomes ' +
            'a key of `custom_fields`. Comma, semicolon or tab separated, UTF-8.',
        },
        mode: {
          type: 'string',
          enum: ['upsert', 'create'],
          default: 'upsert',
          description:
            '`upsert` updates subscribers whose email exists; `create` leaves them alone.',
        },
        columns: {
          type: 'string',
          description:
            'Optional JSON object mapping headers to fields: `{"Mail": "email", "Plan": ' +
            '"custom_fields.plan", "Notes": null}` (null skips the column). Headers it does ' +
            'not name are mapped automatically.',
        },
      },
    },
  })
  @ApiEndpoint({
    id: 'createImport',
    summary: 'Import subscribers from a CSV file',
    description:
      'The file is stored and checked (header, column mapping) before the answer; a worker ' +
      'then imports it in batches. Each row is validated like `POST /v1/subscribers`; a bad ' +
      'row is counted and reported, never fatal. Erased emails are skipped and counted. ' +
      'Blank cells change nothing. Follow progress with `GET /v1/imports/{id}`.',
    success: { status: 202, type: ImportAccepted },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Req() request: FastifyRequest) {
    return this.imports.start(caller, request.raw);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getImport',
    summary: "Get an import's progress",
    description: 'Counts so far and the first 1,000 row errors.',
    success: { status: 200, type: ImportResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.imports.get(caller, id);
  }

  @Get(':id/errors')
  @ApiEndpoint({
    id: 'downloadImportErrors',
    summary: "Download an import's row errors",
    description: 'Every row error so far, as CSV with the columns `row`, `field` and `message`.',
    success: {
      status: 200,
      description: 'CSV, one line per error.',
      mediaType: 'text/csv',
    },
    errors: [404],
  })
  async errors(@Caller() caller: Principal, @Param('id') id: string) {
    const csv = await this.imports.errorsCsv(caller, id);
    return new StreamableFile(csv, {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="import-${id}-errors.csv"`,
    });
  }
}
