import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, Principal } from '../../auth/principal';
import { ApiEndpoint } from '../../platform/openapi/api-endpoint.decorator';
import {
  IDEMPOTENCY_HEADER,
  parseIdempotencyKey,
  REPLAYED_HEADER,
} from '../../transactional/idempotency-key';
import { CreateEventDto, EventResponse } from './automation-event.dto';
import { AutomationEventsService } from './automation-events.service';

@ApiTags('automations')
@Controller('v1/events')
export class AutomationEventsController {
  constructor(private readonly events: AutomationEventsService) {}

  @Post()
  @HttpCode(202)
  @ApiEndpoint({
    id: 'createEvent',
    summary: 'Record an event a subscriber did',
    description:
      'Enrols the subscriber in every active automation whose trigger is an event of this name. With an Idempotency-Key the same request replays the first answer; another payload, or the first still in progress → 409.',
    success: { status: 202, type: EventResponse },
    errors: [409, 422],
    idempotent: true,
  })
  async create(
    @Caller() caller: Principal,
    @Body() body: CreateEventDto,
    @Headers(IDEMPOTENCY_HEADER) rawKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const outcome = await this.events.record(caller, body, parseIdempotencyKey(rawKey));
    void reply.status(outcome.status);
    if (outcome.replayed) void reply.header(REPLAYED_HEADER, 'true');
    return outcome.body;
  }
}
