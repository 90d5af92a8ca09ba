import { Module } from '@nestjs/common';
import { SessionGuard } from './session.guard';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

/** Dashboard sessions: the store, and the check RouteGuard runs on /dashboard/api routes. */
@Module({
  providers: [SessionsRepository, SessionsService, SessionGuard],
  exports: [SessionsService, SessionGuard],
})
export class SessionsModule {}
