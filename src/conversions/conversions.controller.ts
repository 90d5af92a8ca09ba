import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import {
  IDEMPOTENCY_HEADER,
  parseIdempotencyKey,
  REPLAYED_HEADER,
} from '../transactional/idempotency-key';
import { ConversionResponse, CreateConversionDto } from './conversion.dto';
import { ConversionsService } from './conversions.service';

@ApiTags('conversions')
@Controller('v1/conversions')
export class ConversionsController {
  constructor(private readonly conversions: ConversionsService) {}

  @Post()
  @HttpCode(201)
  @ApiEndpoint({
    id: 'createConversion',
    summary: 'Record a conversion (revenue)',
    description:
      "Adds the amount to the subscriber's revenue and to the campaign named, or else to the campaign the subscriber last clicked within the 7 days before occurred_at. With an Idempotency-Key the same request replays the first answer; another payload, or the first still in progress → 409; an erased subscriber → 409.",
    success: { status: 201, type: ConversionResponse },
    errors: [409, 422],
    idempotent: true,
  })
  async create(
    @Caller() caller: Principal,
    @Body() body: CreateConversionDto,
    @Headers(IDEMPOTENCY_HEADER) rawKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const outcome = await this.conversions.create(caller, body, parseIdempotencyKey(rawKey));
    void reply.status(outcome.status);
    if (outcome.replayed) void reply.header(REPLAYED_HEADER, 'true');
    return outcome.body;
  }
}
