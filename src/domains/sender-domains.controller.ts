import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateDomainDto } from './domain.dto';
import { DomainPage, DomainResponse } from './domain.presenter';
import { SenderDomainsService } from './sender-domains.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('domains')
@ApiBearerAuth()
@Controller(['v1/domains', 'dashboard/api/domains'])
export class SenderDomainsController {
  constructor(private readonly domains: SenderDomainsService) {}

  @Get()
  @ApiPageQuery()
  @ApiOkResponse({ type: DomainPage })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.domains.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: DomainResponse })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.domains.get(caller, id);
  }

  @Post()
  @ApiCreatedResponse({ type: DomainResponse, description: 'With the DNS records to publish.' })
  create(@Caller() caller: Principal, @Body() body: CreateDomainDto) {
    return this.domains.create(caller, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.domains.delete(caller, id);
  }

  @Post(':id/verify')
  @HttpCode(200)
  @ApiOkResponse({ type: DomainResponse, description: 'After looking every record up in DNS.' })
  verify(@Caller() caller: Principal, @Param('id') id: string) {
    return this.domains.verify(caller, id);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @ApiOkResponse({
    type: DomainResponse,
    description:
      'Adds a new DKIM key with its own selector. The current key signs until a verification ' +
      'finds the new record; then the new key signs. 409 while a rotation is already waiting.',
  })
  rotate(@Caller() caller: Principal, @Param('id') id: string) {
    return this.domains.rotate(caller, id);
  }
}
