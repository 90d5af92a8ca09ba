import { Module } from '@nestjs/common';
import { AccountRateLimitsRepository } from './account-rate-limits.repository';
import { RateLimiter } from './rate-limiter.service';

/** Imported by the API's auth module only: workers and the CLI are not rate limited. */
@Module({
  providers: [AccountRateLimitsRepository, RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitModule {}
