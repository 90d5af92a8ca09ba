import { Module } from '@nestjs/common';
import { DkimKeyVault } from './dkim-keys';
import { DnsLookup } from './dns-lookup';
import { DomainRecheck } from './domain-recheck';
import { DomainVerifier } from './domain-verifier';
import { SenderDomainsRepository } from './sender-domains.repository';
import { SenderDomainsService } from './sender-domains.service';

/**
 * Sender domains without HTTP: the service that campaigns and transactional mail ask (may
 * this account send from this From? how is it signed?), for API and worker processes alike.
 */
@Module({
  providers: [
    SenderDomainsRepository,
    SenderDomainsService,
    DomainVerifier,
    DnsLookup,
    DkimKeyVault,
  ],
  exports: [SenderDomainsService],
})
export class SenderDomainsCoreModule {}

/** In worker processes: the daily re-check of every domain's records. */
@Module({
  imports: [SenderDomainsCoreModule],
  providers: [DomainRecheck],
})
export class SenderDomainsWorkersModule {}
