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
import { CreateSegmentDto, UpdateSegmentDto } from './segment.dto';
import { SegmentPage, SegmentWithCountResponse } from './segment.presenter';
import { SegmentsService } from './segments.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('segments')
@ApiBearerAuth()
@Controller(['v1/segments', 'dashboard/api/segments'])
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Get()
  @ApiPageQuery()
  @ApiOkResponse({ type: SegmentPage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.segments.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: SegmentWithCountResponse })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.segments.get(caller, id);
  }

  @Post()
  @ApiCreatedResponse({ type: SegmentWithCountResponse })
  create(@Caller() caller: Principal, @Body() body: CreateSegmentDto) {
    return this.segments.create(caller, body);
  }

  @Patch(':id')
  @ApiOkResponse({ type: SegmentWithCountResponse })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateSegmentDto) {
    return this.segments.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.segments.delete(caller, id);
  }
}
