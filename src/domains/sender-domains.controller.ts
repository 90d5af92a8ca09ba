import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { ListQuery } from '../platform/pagination/page-request';
import { CreateDomainDto } from './domain.dto';
import { DomainPage, DomainResponse } from './domain.presenter';
import { SenderDomainsService } from './sender-domains.service';

/** One controller for both surfaces: API keys on /v1, signed-in people on /dashboard/api. */
@ApiTags('domains')
@Controller(['v1/domains', 'dashboard/api/domains'])
export class SenderDomainsController {
  constructor(private readonly domains: SenderDomainsService) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listDomains',
    summary: 'List sender domains',
    success: { status: 200, type: DomainPage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.domains.list(caller, query);
  }

  @Get(':id')
  @ApiEndpoint({
    id: 'getDomain',
    summary: 'Get a sender domain',
    success: { status: 200, type: DomainResponse },
    errors: [404],
  })
  get(@Caller() caller: Principal, @Param('id') id: string) {
    return this.domains.get(caller, id);
  }

  @Post()
  @ApiEndpoint({
    id: 'createDomain',
    summary: 'Add a sender domain',
    success: { status: 201, type: DomainResponse, description: 'With the DNS records to publish.' },
    errors: [409, 422],
  })
  create(@Caller() caller: Principal, @Body() body: CreateDomainDto) {
    return this.domains.create(caller, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'deleteDomain',
    summary: 'Remove a sender domain',
    success: { status: 204 },
    errors: [404],
  })
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<void> {
    return this.domains.delete(caller, id);
  }

  @Post(':id/verify')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'verifyDomain',
    summary: 'Check the DNS records of a sender domain',
    success: {
      status: 200,
      type: DomainResponse,
      description: 'After looking every record up in DNS.',
    },
    errors: [404],
  })
  verify(@Caller() caller: Principal, @Param('id') id: string) {
    return this.domains.verify(caller, id);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @ApiEndpoint({
    id: 'rotateDomainKey',
    summary: 'Start a DKIM key rotation',
    description:
      'Adds a new DKIM key with its own selector. The current key signs until a verification finds the new record; then the new key signs. 409 while a rotation is already waiting.',
    success: { status: 200, type: DomainResponse },
    errors: [404, 409],
  })
  rotate(@Caller() caller: Principal, @Param('id') id: string) {
    return this.domains.rotate(caller, id);
  }
}
