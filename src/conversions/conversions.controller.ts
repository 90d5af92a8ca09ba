import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Idempotency, IdempotentCall } from '../transactional/idempotency.decorator';
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
    errors: [422],
    idempotent: true,
  })
  async create(
    @Caller() caller: Principal,
    @Body() body: CreateConversionDto,
    @Idempotency() idempotency: IdempotentCall,
  ): Promise<unknown> {
    return idempotency.answer(await this.conversions.create(caller, body, idempotency.key));
  }
}
