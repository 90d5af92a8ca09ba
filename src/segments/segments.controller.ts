import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateSegmentDto, UpdateSegmentDto } from './segment.dto';
import { SegmentPage, SegmentWithCountResponse } from './segment.presenter';
import { SegmentsService } from './segments.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('segments')
@Controller(['v1/segments', 'dashboard/api/segments'])
export class SegmentsController {
  constructor(private readonly segments: SegmentsService) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listSegments',
    summary: 'List segments',
    success: { status: 200, type: SegmentPage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.segments.list(caller, query);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getSegment',
    summary: 'Get a segment with its current size',
    success: { status: 200, type: SegmentWithCountResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.segments.get(caller, id);
  }

  @Post()
  @ApiEndpoint({
    id: 'createSegment',
    summary: 'Create a segment',
    success: { status: 201, type: SegmentWithCountResponse },
    errors: [422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateSegmentDto) {
    return this.segments.create(caller, body);
  }

  @Patch(':id')
  @ApiEndpoint({
    id: 'updateSegment',
    summary: 'Update a segment',
    success: { status: 200, type: SegmentWithCountResponse },
    errors: [404, 422],
  })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateSegmentDto) {
    return this.segments.update(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'deleteSegment',
    summary: 'Delete a segment',
    description: 'A segment an unsent campaign uses cannot be deleted (409).',
    success: { status: 204 },
    errors: [404, 409],
  })
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.segments.delete(caller, id);
  }
}
