import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { EraseIdentityDto, ErasureReceiptDto } from './erasure.dto';
import { ErasureService } from './erasure.service';

@ApiTags('erasures')
@ApiBearerAuth()
@Controller('v1/erasures')
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: ErasureReceiptDto })
  erase(@Caller() caller: Principal, @Body() body: EraseIdentityDto): Promise<ErasureReceiptDto> {
    return this.erasure.erase(caller, body.email);
  }
}
