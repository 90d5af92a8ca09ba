import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
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
@ApiBearerAuth()
@Controller(['v1/templates', 'dashboard/api/templates'])
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiPageQuery()
  @ApiOkResponse({ type: TemplatePage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.templates.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: TemplateResponse })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.templates.get(caller, id);
  }

  @Post()
  @ApiCreatedResponse({ type: TemplateResponse })
  create(@Caller() caller: Principal, @Body() body: CreateTemplateDto) {
    return this.templates.create(caller, body);
  }

  @Patch(':id')
  @ApiOkResponse({ type: TemplateResponse })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateTemplateDto) {
    return this.templates.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.templates.delete(caller, id);
  }

  @Post(':id/preview')
  @HttpCode(200)
  @ApiOkResponse({ type: RenderedTemplateResponse })
  preview(@Caller() caller: Principal, @Param('id') id: string, @Body() body: PreviewTemplateDto) {
    return this.templates.preview(caller, id, body);
  }
}
