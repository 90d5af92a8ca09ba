import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { ListQuery } from '../platform/pagination/page-request';
import { MessagePage, MessageResponse } from './message.dto';
import type { MessageQuery } from './message-filters';
import { MESSAGE_SOURCES, MESSAGE_STATUSES } from './messages.repository';
import { MessagesService } from './messages.service';

@ApiTags('messages')
@Controller(['v1/messages', 'dashboard/api/messages'])
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Get()
  @ApiPageQuery()
  @ApiQuery({ name: 'recipient', required: false, description: 'An email address.' })
  @ApiQuery({ name: 'status', required: false, enum: MESSAGE_STATUSES })
  @ApiQuery({ name: 'source', required: false, enum: MESSAGE_SOURCES })
  @ApiQuery({ name: 'campaign_id', required: false, schema: { type: 'string', format: 'uuid' } })
  @ApiQuery({ name: 'automation_id', required: false, schema: { type: 'string', format: 'uuid' } })
  @ApiQuery({ name: 'since', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiQuery({ name: 'until', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiEndpoint({
    id: 'listMessages',
    summary: 'List messages, newest first',
    description:
      'Every message Herald sent (campaign, transactional, automation, test) within ' +
      'MESSAGE_RETENTION_DAYS. A filter that cannot be parsed is a 400.',
    success: { status: 200, type: MessagePage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery & MessageQuery) {
    return this.messages.list(caller, query);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getMessage',
    summary: 'A message and its events, oldest first',
    success: { status: 200, type: MessageResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string): Promise<MessageResponse> {
    return this.messages.get(caller, id);
  }
}
