import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AccountsModule } from './accounts/accounts.module';
import { AuditModule } from './audit/audit-log';
import { ApiAuthModule, AuthModule } from './auth/auth.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { ErasureModule } from './erasure/erasure.module';
import { HeraldConfig } from './platform/config/config';
import { ConfigModule } from './platform/config/config.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { ApiExceptionFilter } from './platform/errors/api-exception.filter';
import { RequestValidationPipe } from './platform/errors/validation.pipe';
import { HealthModule } from './platform/health/health.controller';
import { PaginationModule } from './platform/pagination/pagination.module';
import { RedisModule } from './platform/redis/redis.module';
import { SegmentsModule } from './segments/segments.module';
import { SubscribersModule } from './subscribers/subscribers.module';
import { TemplatesModule } from './templates/templates.module';

/**
 * Herald is one codebase with several entry points (STYLE §2). Each builds its root module
 * here from the same parts: the API gets controllers, the guard, the filter and the pipe;
 * workers and the CLI get only the data layer and the services they use.
 */
@Module({})
export class AppModule {
  /** What every process needs: config, PostgreSQL, Redis, hashing, audit. */
  private static core(config?: HeraldConfig) {
    return [
      ConfigModule.forRoot(config),
      DatabaseModule,
      RedisModule,
      CryptoModule,
      AuditModule,
      PaginationModule,
    ];
  }

  static api(config?: HeraldConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...AppModule.core(config),
        HealthModule,
        ApiAuthModule,
        SubscribersModule,
        ErasureModule,
        SegmentsModule,
        TemplatesModule,
        CampaignsModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
      ],
    };
  }

  static worker(config?: HeraldConfig): DynamicModule {
    return { module: AppModule, imports: [...AppModule.core(config)] };
  }

  static cli(config?: HeraldConfig): DynamicModule {
    return { module: AppModule, imports: [...AppModule.core(config), AccountsModule, AuthModule] };
  }
}
