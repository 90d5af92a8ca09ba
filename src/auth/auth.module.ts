import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyChangeListener } from './api-key-change.listener';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [AccountsModule],
  // The cache is off until ApiKeyChangeListener (API processes only) turns it on.
  providers: [ApiKeysRepository, ApiKeysService, ApiKeyCache],
  exports: [ApiKeysService, ApiKeyCache],
})
export class AuthModule {}

/**
 * The API key half of RouteGuard, and the rate limiter every half of it enforces. Imported only by the
 * HTTP API module, so workers and the CLI carry no guard (nor a key change listener).
 */
@Module({
  imports: [AuthModule, RateLimitModule],
  providers: [ApiKeyGuard, ApiKeyChangeListener],
  exports: [ApiKeyGuard, RateLimitModule],
})
export class ApiAuthModule {}
