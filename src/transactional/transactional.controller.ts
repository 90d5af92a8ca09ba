import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { Idempotency, IdempotentCall } from './idempotency.decorator';
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
    errors: [422],
    idempotent: true,
  })
  async send(
    @Caller() caller: Principal,
    @Body() body: SendTransactionalDto,
    @Idempotency() idempotency: IdempotentCall,
  ): Promise<unknown> {
    return idempotency.answer(await this.transactional.send(caller, body, idempotency.key));
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
