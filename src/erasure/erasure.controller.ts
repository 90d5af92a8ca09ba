import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { EraseIdentityDto, ErasureReceiptDto } from './erasure.dto';
import { ErasureService } from './erasure.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('erasures')
@ApiBearerAuth()
@Controller(['v1/erasures', 'dashboard/api/erasures'])
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ErasureReceiptDto })
  erase(@Caller() caller: Principal, @Body() body: EraseIdentityDto): Promise<ErasureReceiptDto> {
    return this.erasure.erase(caller, body.email);
  }
}
