import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { EraseIdentityDto, ErasureReceiptDto } from './erasure.dto';
import { ErasureService } from './erasure.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('erasures')
@Controller(['v1/erasures', 'dashboard/api/erasures'])
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  @Post()
  @HttpCode(200)
  @ApiEndpoint({
    id: 'eraseIdentity',
    summary: 'Erase a person',
    description:
      'Deletes the personal data of that email everywhere and keeps a keyed hash as a tombstone. Idempotent.',
    success: { status: 200, type: ErasureReceiptDto },
    errors: [422],
  })
  erase(@Caller() caller: Principal, @Body() body: EraseIdentityDto): Promise<ErasureReceiptDto> {
    return this.erasure.erase(caller, body.email);
  }
}
