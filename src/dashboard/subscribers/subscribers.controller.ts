import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AuditLog } from '../../audit/audit-log';
import { ErasureService } from '../../erasure/erasure.service';
import { ListQuery } from '../../platform/pagination/page-request';
import { Paginator } from '../../platform/pagination/paginator';
import { CreateSubscriberDto, UpdateSubscriberDto } from '../../subscribers/subscriber.dto';
import { presentSubscriber } from '../../subscribers/subscriber.presenter';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { SessionGuard } from '../sessions/session.guard';
import { actingAs, DashboardUser, SignedIn } from '../sessions/signed-in';
import { SubscriberSearchRepository } from './subscriber-search.repository';

/** Subscribers in the dashboard: search, detail, edit and erasure, through the domain services. */
@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api/subscribers')
export class DashboardSubscribersController {
  constructor(
    private readonly subscribers: SubscribersService,
    private readonly search: SubscriberSearchRepository,
    private readonly erasure: ErasureService,
    private readonly paginator: Paginator,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  list(@SignedIn() user: DashboardUser, @Query() query: ListQuery & { q?: unknown }) {
    const q = typeof query.q === 'string' ? query.q.slice(0, 254) : '';
    return this.paginator.page(
      user.accountId,
      'dashboard-subscribers',
      query,
      (page) => this.search.search(user.accountId, q, page),
      presentSubscriber,
    );
  }

  @Get(':id')
  get(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.subscribers.get(actingAs(user), id);
  }

  @Post()
  create(@SignedIn() user: DashboardUser, @Body() body: CreateSubscriberDto) {
    return this.subscribers.create(actingAs(user), body);
  }

  @Patch(':id')
  update(
    @SignedIn() user: DashboardUser,
    @Param('id') id: string,
    @Body() body: UpdateSubscriberDto,
  ) {
    return this.subscribers.update(actingAs(user), id, body);
  }

  /**
   * Erases the subscriber's identity (CONTRACT §4): their personal data goes everywhere it is
   * stored and only a keyed hash of the email stays, so they are never written to again.
   */
  @Post(':id/erase')
  @HttpCode(200)
  async erase(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    const subscriber = await this.subscribers.get(actingAs(user), id);
    const receipt = await this.erasure.erase(actingAs(user), subscriber.email);
    await this.audit.record(user.accountId, {
      action: 'identity.erased_from_dashboard',
      subjectHash: receipt.email_hash,
      metadata: { user_id: user.userId },
    });
    return receipt;
  }
}
