import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import {
  CreateTemplateDto,
  PreviewTemplateDto,
  RenderedTemplateResponse,
  UpdateTemplateDto,
} from './template.dto';
import { TemplatePage, TemplateResponse } from './template.presenter';
import { TemplatesService } from './templates.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('templates')
@Controller(['v1/templates', 'dashboard/api/templates'])
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listTemplates',
    summary: 'List templates',
    success: { status: 200, type: TemplatePage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.templates.list(caller, query);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getTemplate',
    summary: 'Get a template',
    success: { status: 200, type: TemplateResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.templates.get(caller, id);
  }

  @Post()
  @ApiEndpoint({
    id: 'createTemplate',
    summary: 'Create a template',
    success: { status: 201, type: TemplateResponse },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateTemplateDto) {
    return this.templates.create(caller, body);
  }

  @Patch(':id')
  @ApiEndpoint({
    id: 'updateTemplate',
    summary: 'Update a template',
    success: { status: 200, type: TemplateResponse },
    errors: [404, 422],
  })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateTemplateDto) {
    return this.templates.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'deleteTemplate',
    summary: 'Delete a template',
    description: 'A template an unsent campaign uses cannot be deleted (409).',
    success: { status: 204 },
    errors: [404, 409],
  })
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.templates.delete(caller, id);
  }

  @Post(':id/preview')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'previewTemplate',
    summary: 'Render a template',
    description: 'With `subscriber_id`, the key also needs `subscribers:read`.',
    success: { status: 200, type: RenderedTemplateResponse },
    errors: [404, 422],
  })
  preview(@Caller() caller: Principal, @Param('id') id: string, @Body() body: PreviewTemplateDto) {
    return this.templates.preview(caller, id, body);
  }
}
