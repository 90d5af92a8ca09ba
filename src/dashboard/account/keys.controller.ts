import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { CreateKeyDto } from './keys.dto';
import { DashboardKeysService } from './keys.service';
import { scopeCatalog } from './scope-catalog';

/** Account > API Keys: people issue and revoke keys here; /v1 never does. */
@ApiExcludeController()
@Controller('dashboard/api')
export class KeysController {
  constructor(private readonly keys: DashboardKeysService) {}

  @Get('scopes')
  scopes() {
    return { data: scopeCatalog() };
  }

  @Get('keys')
  list(@Caller() caller: Principal) {
    return this.keys.list(caller);
  }

  @Post('keys')
  create(@Caller() caller: Principal, @Body() body: CreateKeyDto) {
    return this.keys.create(caller, body.name, body.scopes);
  }

  @Post('keys/:id/revoke')
  @HttpCode(200)
  revoke(@Caller() caller: Principal, @Param('id') id: string) {
    return this.keys.revoke(caller, id);
  }
}
