import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiHeader,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, Principal } from '../auth/principal';
import { IDEMPOTENCY_HEADER, parseIdempotencyKey, REPLAYED_HEADER } from './idempotency-key';
import { SendTransactionalDto, TransactionalAcceptedResponse } from './transactional.dto';
import { TransactionalMessageResponse } from './transactional.presenter';
import { TransactionalService } from './transactional.service';

@ApiTags('transactional')
@ApiBearerAuth()
@Controller('v1/transactional')
export class TransactionalController {
  constructor(private readonly transactional: TransactionalService) {}

  @Post('send')
  @HttpCode(202)
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1-255 characters, kept 24 hours per account. A retry with the same key and payload ' +
      'replays the first response with `Idempotent-Replayed: true`.',
  })
  @ApiAcceptedResponse({ type: TransactionalAcceptedResponse })
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
  @ApiOkResponse({ type: TransactionalMessageResponse })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.transactional.get(caller, id);
  }
}
