import { Module } from '@nestjs/common';
import { SenderDomainsController } from './sender-domains.controller';
import { SenderDomainsCoreModule } from './sender-domains.module';

/** The API: /v1/domains. */
@Module({
  imports: [SenderDomainsCoreModule],
  controllers: [SenderDomainsController],
})
export class SenderDomainsApiModule {}
