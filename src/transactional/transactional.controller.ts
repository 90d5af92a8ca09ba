import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, Principal } from '../auth/principal';
import { IDEMPOTENCY_HEADER, parseIdempotencyKey, REPLAYED_HEADER } from './idempotency-key';
import { SendTransactionalDto, TransactionalAcceptedResponse } from './transactional.dto';
import { TransactionalMessageResponse } from './transactional.presenter';
import { TransactionalService } from './transactional.service';

@ApiTags('transactional')
@Controller('v1/transactional')
export class TransactionalController {
  constructor(private readonly transactional: TransactionalService) {}

  @Post('send')
  @HttpCode(202)
  @ApiEndpoint({
    id: 'sendTransactional',
    summary: 'Send a transactional email',
    description:
      'Inline content (html and/or text) or a stored template. 409: the idempotency key was reused with another payload, the first request is still in progress, or the recipient was erased.',
    success: { status: 202, type: TransactionalAcceptedResponse },
    errors: [409, 422],
    idempotent: true,
  })
  async send(
    @Caller() caller: Principal,
    @Body() body: SendTransactionalDto,
    @Headers(IDEMPOTENCY_HEADER) rawKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const key = parseIdempotencyKey(rawKey);
    const outcome = await this.transactional.send(caller, body, key);
    void reply.status(outcome.status);
    if (outcome.replayed) void reply.header(REPLAYED_HEADER, 'true');
    return outcome.body;
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getTransactional',
    summary: 'Get a transactional message',
    success: { status: 200, type: TransactionalMessageResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.transactional.get(caller, id);
  }
}
