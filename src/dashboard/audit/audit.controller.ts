import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../../auth/principal';
import { ListQuery } from '../../platform/pagination/page-request';
import { DashboardAuditService } from './audit-log.service';

@ApiExcludeController()
@Controller('dashboard/api/audit')
export class AuditController {
  constructor(private readonly audit: DashboardAuditService) {}

  @Get()
  list(@Caller() caller: Principal, @Query() query: ListQuery) {
    return this.audit.list(caller.accountId, query);
  }
}
