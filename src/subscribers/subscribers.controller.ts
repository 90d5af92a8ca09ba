import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../auth/principal';
import { CalledVia, Surface } from '../auth/surface';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateSubscriberDto, UpdateSubscriberDto } from './subscriber.dto';
import { SubscriberPage, SubscriberResponse } from './subscriber.presenter';
import { SubscribersService } from './subscribers.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('subscribers')
@ApiBearerAuth()
@Controller(['v1/subscribers', 'dashboard/api/subscribers'])
export class SubscribersController {
  constructor(private readonly subscribers: SubscribersService) {}

  /**
   * The dashboard searches the list by email (`q`); /v1 lists in order and ignores `q`, so
   * an API client never triggers the search's longer scan.
   */
  @Get()
  @ApiPageQuery()
  @ApiOkResponse({ type: SubscriberPage })
  list(
    @Caller() caller: Principal,
    @Query() query: ListQuery & { q?: unknown },
    @CalledVia() via: Surface,
  ) {
    if (via === 'api') return this.subscribers.list(caller, query);
    const text = typeof query.q === 'string' ? query.q.slice(0, 254) : '';
    return this.subscribers.search(caller, query, text);
  }

  @Get(':id')
  @ApiOkResponse({ type: SubscriberResponse })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.subscribers.get(caller, id);
  }

  @Post()
  @ApiCreatedResponse({ type: SubscriberResponse })
  create(@Caller() caller: Principal, @Body() body: CreateSubscriberDto) {
    return this.subscribers.create(caller, body);
  }

  @Patch(':id')
  @ApiOkResponse({ type: SubscriberResponse })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateSubscriberDto) {
    return this.subscribers.update(caller, id, body);
  }
}
