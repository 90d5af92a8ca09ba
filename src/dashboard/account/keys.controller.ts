import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SessionGuard } from '../sessions/session.guard';
import { DashboardUser, SignedIn } from '../sessions/signed-in';
import { CreateKeyDto } from './keys.dto';
import { DashboardKeysService } from './keys.service';
import { scopeCatalog } from './scope-catalog';

@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api')
export class KeysController {
  constructor(private readonly keys: DashboardKeysService) {}

  @Get('scopes')
  scopes() {
    return { data: scopeCatalog() };
  }

  @Get('keys')
  list(@SignedIn() user: DashboardUser) {
    return this.keys.list(user);
  }

  @Post('keys')
  create(@SignedIn() user: DashboardUser, @Body() body: CreateKeyDto) {
    return this.keys.create(user, body.name, body.scopes);
  }

  @Post('keys/:id/revoke')
  @HttpCode(200)
  revoke(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.keys.revoke(user, id);
  }
}
