import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { SessionsModule } from '../dashboard/sessions/sessions.module';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { RouteGuard } from './route.guard';

@Module({
  imports: [AccountsModule],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class AuthModule {}

/**
 * The one guard of every HTTP route. Registered only by the HTTP API module, so workers and
 * the CLI carry no guard.
 */
@Module({
  imports: [AuthModule, RateLimitModule, SessionsModule],
  providers: [ApiKeyGuard, { provide: APP_GUARD, useClass: RouteGuard }],
})
export class ApiAuthModule {}
