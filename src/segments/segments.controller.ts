import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { presentSegment, SegmentPage } from './segment.presenter';
import { SegmentsRepository } from './segments.repository';

@ApiTags('segments')
@ApiBearerAuth()
@Controller('v1/segments')
export class SegmentsController {
  constructor(
    private readonly segments: SegmentsRepository,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1..100, default 25' })
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiOkResponse({ type: SegmentPage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.paginator.page(
      caller.accountId,
      'segments',
      query,
      (page) => this.segments.listPage(caller.accountId, page),
      presentSegment,
    );
  }
}
