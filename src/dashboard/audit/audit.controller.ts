import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ListQuery } from '../../platform/pagination/page-request';
import { SessionGuard } from '../sessions/session.guard';
import { DashboardUser, SignedIn } from '../sessions/signed-in';
import { DashboardAuditService } from './audit-log.service';

@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api/audit')
export class AuditController {
  constructor(private readonly audit: DashboardAuditService) {}

  @Get()
  list(@SignedIn() user: DashboardUser, @Query() query: ListQuery) {
    return this.audit.list(user.accountId, query);
  }
}
