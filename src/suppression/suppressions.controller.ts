import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, Principal } from '../auth/principal';
import { NotFoundError } from '../platform/errors/api-errors';
import { ApiPageQuery } from '../platform/pagination/api-page-query.decorator';
import { ListQuery } from '../platform/pagination/page-request';
import { AddSuppressionDto, SuppressionPage, SuppressionResponse } from './suppression.dto';
import { SuppressionsService } from './suppressions.service';

/** Longest address Herald accepts anywhere (RFC 5321's path limit). */
const MAX_EMAIL = 254;

@ApiTags('suppressions')
@Controller(['v1/suppressions', 'dashboard/api/suppressions'])
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Get()
  @ApiPageQuery()
  @ApiEndpoint({
    id: 'listSuppressions',
    summary: 'List suppressed addresses',
    success: { status: 200, type: SuppressionPage },
  })
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.suppressions.list(caller, query);
  }

  /** 201 with the new entry; 200 with the existing one when the address is already listed. */
  @Post()
  @ApiEndpoint({
    id: 'addSuppression',
    summary: 'Suppress an address',
    description: 'An address whose identity was erased is refused with 409.',
    success: [
      { status: 201, type: SuppressionResponse },
      { status: 200, type: SuppressionResponse, description: 'Already listed.' },
    ],
    errors: [409, 422],
  })
  async add(
    @Caller() caller: Principal,
    @Body() body: AddSuppressionDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuppressionResponse> {
    const { suppression, created } = await this.suppressions.add(caller, body.email);
    void reply.status(created ? 201 : 200);
    return suppression;
  }

  @Delete(':email')
  @HttpCode(204)
  @ApiEndpoint({
    id: 'removeSuppression',
    summary: 'Remove an address from the suppression list',
    success: {
      status: 204,
      description: 'Removed; a subscriber it had stopped is subscribed again.',
    },
    errors: [404],
  })
  remove(@Caller() caller: Principal, @Param('email') email: string): Promise<void> {
    if (email.length > MAX_EMAIL || !email.includes('@')) throw new NotFoundError('suppression');
    return this.suppressions.remove(caller, email);
  }
}
