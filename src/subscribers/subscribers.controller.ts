import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../auth/principal';
import { CalledVia, Surface } from '../auth/surface';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateSubscriberDto, UpdateSubscriberDto } from './subscriber.dto';
import { SubscriberPage, SubscriberResponse } from './subscriber-response.dto';
import { SubscribersService } from './subscribers.service';
import { BatchResponse, BatchSubscribersDto } from './subscriber-batch.dto';
import { SubscriberBatches } from './subscriber-batches';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('subscribers')
@Controller(['v1/subscribers', 'dashboard/api/subscribers'])
export class SubscribersController {
  constructor(
    private readonly subscribers: SubscribersService,
    private readonly batches: SubscriberBatches,
  ) {}

  /**
   * The dashboard searches the list by email (`q`); /v1 lists in order and ignores `q`, so
   * an API client never triggers the search's longer scan.
   */
  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listSubscribers',
    summary: 'List subscribers',
    description: 'Newest first, one page at a time.',
    success: { status: 200, type: SubscriberPage },
  })
  list(
    @Caller() caller: Principal,
    @Query() query: ListQuery & { q?: unknown },
    @CalledVia() via: Surface,
  ) {
    if (via === 'api') return this.subscribers.list(caller, query);
    const text = typeof query.q === 'string' ? query.q.slice(0, 254) : '';
    return this.subscribers.search(caller, query, text);
  }

  @Post('batch')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'batchUpsertSubscribers',
    summary: 'Create or update many subscribers',
    description:
      'Up to 1,000 subscribers, upserted by email in one transaction: a new email is ' +
      'created, an existing one updated with PATCH semantics. Every item is validated on ' +
      'its own and gets one result, in order; an invalid item or an erased email (`erased`) ' +
      'fails only that item.',
    success: { status: 200, type: BatchResponse },
    errors: [422],
  })
  batch(@Caller() caller: Principal, @Body() body: BatchSubscribersDto) {
    return this.batches.upsert(caller, body.subscribers);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getSubscriber',
    summary: 'Get a subscriber',
    success: { status: 200, type: SubscriberResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.subscribers.get(caller, id);
  }

  @Post()
  @ApiEndpoint({
    id: 'createSubscriber',
    summary: 'Create a subscriber',
    description:
      'An email that already exists is a 422 (`already_exists` on `email`); an erased one is a 409.',
    success: { status: 201, type: SubscriberResponse },
    errors: [409, 422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateSubscriberDto) {
    return this.subscribers.create(caller, body);
  }

  @Patch(':id')
  @ApiEndpoint({
    id: 'updateSubscriber',
    summary: 'Update a subscriber',
    description:
      'Only the fields given change; `null` clears an optional field. Changing to an erased email is a 409.',
    success: { status: 200, type: SubscriberResponse },
    errors: [404, 409, 422],
  })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateSubscriberDto) {
    return this.subscribers.update(caller, id, body);
  }
}
