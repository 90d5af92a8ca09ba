import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { presentTemplate, TemplatePage } from './template.presenter';
import { TemplatesRepository } from './templates.repository';

@ApiTags('templates')
@ApiBearerAuth()
@Controller('v1/templates')
export class TemplatesController {
  constructor(
    private readonly templates: TemplatesRepository,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1..100, default 25' })
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiOkResponse({ type: TemplatePage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.paginator.page(
      caller.accountId,
      'templates',
      query,
      (page) => this.templates.listPage(caller.accountId, page),
      presentTemplate,
    );
  }
}
