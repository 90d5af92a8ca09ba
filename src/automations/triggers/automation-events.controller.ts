import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { ApiEndpoint } from '../../platform/openapi/api-endpoint.decorator';
import { Idempotency, IdempotentCall } from '../../transactional/idempotency.decorator';
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
    errors: [422],
    idempotent: true,
  })
  async create(
    @Caller() caller: Principal,
    @Body() body: CreateEventDto,
    @Idempotency() idempotency: IdempotentCall,
  ): Promise<unknown> {
    return idempotency.answer(await this.events.record(caller, body, idempotency.key));
  }
}
