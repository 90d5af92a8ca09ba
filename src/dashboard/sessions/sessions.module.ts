import { Module } from '@nestjs/common';
import { SESSION_CHECK } from '../../auth/route.guard';
import { SessionGuard } from './session.guard';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

/** Dashboard sessions: the store, and the check RouteGuard runs on /dashboard/api routes. */
@Module({
  providers: [
    SessionsRepository,
    SessionsService,
    SessionGuard,
    { provide: SESSION_CHECK, useExisting: SessionGuard },
  ],
  exports: [SessionsService, SESSION_CHECK],
})
export class SessionsModule {}
