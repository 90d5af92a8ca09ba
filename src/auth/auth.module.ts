import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [AccountsModule],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class AuthModule {}

/**
 * The API key half of RouteGuard, with the rate limiter it enforces. Imported only by the
 * HTTP API module, so workers and the CLI carry no guard.
 */
@Module({
  imports: [AuthModule, RateLimitModule],
  providers: [ApiKeyGuard],
  exports: [ApiKeyGuard],
})
export class ApiAuthModule {}
