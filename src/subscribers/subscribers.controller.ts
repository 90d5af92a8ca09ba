import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { Caller, Principal } from '../auth/principal';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateSubscriberDto, UpdateSubscriberDto } from './subscriber.dto';
import { SubscriberPage, SubscriberResponse } from './subscriber.presenter';
import { SubscribersService } from './subscribers.service';

@ApiTags('subscribers')
@ApiBearerAuth()
@Controller('v1/subscribers')
export class SubscribersController {
  constructor(private readonly subscribers: SubscribersService) {}

  @Get()
  @ApiPageQuery()
  @ApiOkResponse({ type: SubscriberPage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.subscribers.list(caller, query);
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
