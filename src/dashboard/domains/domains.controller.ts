import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CreateDomainDto } from '../../domains/domain.dto';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import { ListQuery } from '../../platform/pagination/page-request';
import { SessionGuard } from '../sessions/session.guard';
import { actingAs, DashboardUser, SignedIn } from '../sessions/signed-in';

/**
 * Sender domains in the dashboard: the same service as /v1/domains, behind the session guard.
 * A separate controller only because /v1 routes are guarded by API key and these by session.
 */
@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api/domains')
export class DashboardDomainsController {
  constructor(private readonly domains: SenderDomainsService) {}

  @Get()
  list(@SignedIn() user: DashboardUser, @Query() query: ListQuery) {
    return this.domains.list(actingAs(user), query);
  }

  @Get(':id')
  get(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.domains.get(actingAs(user), id);
  }

  @Post()
  create(@SignedIn() user: DashboardUser, @Body() body: CreateDomainDto) {
    return this.domains.create(actingAs(user), body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.domains.delete(actingAs(user), id);
  }

  @Post(':id/verify')
  @HttpCode(200)
  verify(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.domains.verify(actingAs(user), id);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  rotate(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.domains.rotate(actingAs(user), id);
  }
}
